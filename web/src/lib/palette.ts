// The search palette's list: threads whose name matches (from the thread list already loaded) and
// messages whose text matches (GET /api/search), as one keyboard-navigable list.
import type { Role, SearchResult, Thread } from "@protocol";
import { errorText } from "../api";
import { branchOf } from "./branches";

/** Shorter queries are not sent to the server's search. */
export const MIN_QUERY = 2;

export interface SnippetPart {
  text: string;
  hit: boolean;
}

export type PaletteEntry =
  | { kind: "thread"; key: string; threadId: string; name: string; lastActivity: number }
  | {
      kind: "message";
      key: string;
      threadId: string;
      threadName: string;
      messageId: string;
      /** The user message whose branch holds the hit (switched to when it is not current). */
      branchTo: string | null;
      role: Role;
      createdAt: number;
      snippet: SnippetPart[];
    };

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1].toLowerCase() === "x" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/**
 * A search snippet (HTML: hits in <mark>, the rest escaped) as plain text parts, so that it is shown
 * as text and never as HTML: <mark> is the one element kept (as `hit`), any other tag is dropped.
 */
export function snippetParts(html: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  const pieces = html.split(/(<mark>[\s\S]*?<\/mark>)/i);
  for (const piece of pieces) {
    const mark = /^<mark>([\s\S]*)<\/mark>$/i.exec(piece);
    const text = decodeEntities((mark ? mark[1] : piece).replace(/<[^>]*>/g, ""));
    if (!text) continue;
    const hit = !!mark;
    const last = parts[parts.length - 1];
    if (last && last.hit === hit) last.text += text;
    else parts.push({ text, hit });
  }
  return parts;
}

const wordsOf = (query: string) => query.toLowerCase().split(/\s+/).filter(Boolean);

/**
 * Threads whose name holds every word of the query: names that start with it first, then names
 * with a word that does, then the rest; the most recently active first within each. An empty query
 * lists the most recent threads (the palette doubles as a thread switcher).
 */
export function matchThreads(query: string, threads: readonly Thread[], limit: number): Thread[] {
  const q = query.trim().toLowerCase();
  const words = wordsOf(q);
  const rank = (name: string) => (name.startsWith(q) ? 0 : words.some((w) => new RegExp(`(^|\\W)${escapeRegExp(w)}`).test(name)) ? 1 : 2);
  return threads
    .map((thread) => ({ thread, name: thread.name.toLowerCase() }))
    .filter(({ name }) => words.every((w) => name.includes(w)))
    .sort((a, b) => rank(a.name) - rank(b.name) || b.thread.lastActivity - a.thread.lastActivity)
    .slice(0, limit)
    .map(({ thread }) => thread);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Thread matches first (they are few and exact), then message hits in the server's order. */
export function paletteEntries(
  query: string,
  threads: readonly Thread[],
  results: readonly SearchResult[],
  threadLimit = 5,
): PaletteEntry[] {
  const entries: PaletteEntry[] = matchThreads(query, threads, threadLimit).map((t) => ({
    kind: "thread",
    key: `thread:${t.id}`,
    threadId: t.id,
    name: t.name,
    lastActivity: t.lastActivity,
  }));
  const seen = new Set<string>();
  for (const r of results) {
    if (seen.has(r.messageId)) continue;
    seen.add(r.messageId);
    entries.push({
      kind: "message",
      key: `message:${r.messageId}`,
      threadId: r.threadId,
      threadName: r.threadName,
      messageId: r.messageId,
      branchTo: branchOf(r),
      role: r.role,
      createdAt: r.createdAt,
      snippet: snippetParts(r.snippet),
    });
  }
  return entries;
}

/** The next selectable index when moving by `step` (wrapping around); -1 for an empty list. */
export function moveSelection(index: number, step: number, count: number): number {
  if (count === 0) return -1;
  if (index < 0) return step > 0 ? 0 : count - 1;
  return (((index + step) % count) + count) % count;
}

/**
 * The palette's status line for `typed` (trimmed): the search failed, is on its way (typing has not
 * paused yet, or its answer is awaited), or found nothing; null while entries are shown.
 */
export function paletteStatus(
  typed: string,
  settled: string,
  search: { isFetching: boolean; isError: boolean; error: unknown },
  found: number,
): string | null {
  const searched = settled.length >= MIN_QUERY;
  if (searched && search.isError) return `Search failed: ${errorText(search.error)}`;
  if (typed !== settled || (searched && search.isFetching)) return typed.length >= MIN_QUERY ? "Searching…" : null;
  if (found === 0) return typed ? "Nothing matches." : "No threads yet.";
  return null;
}
