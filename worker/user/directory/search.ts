// Full-text search over the user's text messages: FTS5 in the user's object, indexed by triggers as
// the threads report their messages. Only this user's messages are in the index, so a search costs
// the same however many users the deployment has.
import { sql } from "drizzle-orm";
import type { Role, SearchResult } from "../../../protocol";
import type { UserDb } from "../store";

// Control characters mark the hits inside snippet(), so the text around them can be escaped whole.
const HIT_OPEN = "\u0001";
const HIT_CLOSE = "\u0002";

/**
 * A prefix term expands to every indexed word it begins: one character would name a large part of
 * the vocabulary, so a shorter last word is matched as a whole word instead.
 */
const MIN_PREFIX_CHARS = 2;

/** The user's words as an FTS5 query: each word a quoted term (no operators), the last also a prefix if long enough. */
export function ftsQuery(q: string): string | null {
  const words = q.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) return null;
  const last = words.length - 1;
  return words.map((w, i) => `"${w}"${i === last && [...w].length >= MIN_PREFIX_CHARS ? "*" : ""}`).join(" ");
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The snippet as HTML: the text escaped, the hits in <mark>. */
export function markHits(snippet: string): string {
  return escapeHtml(snippet).replaceAll(HIT_OPEN, "<mark>").replaceAll(HIT_CLOSE, "</mark>");
}

/** The best matches of `q`, in every thread of the user or in one project's threads. */
export function searchMessages(db: UserDb, q: string, limit: number, projectId?: string): SearchResult[] {
  const match = ftsQuery(q);
  if (!match) return [];
  const rows = db.all<{ message_id: string; thread_id: string; name: string; role: Role; parent_id: string | null; created_at: number; snip: string }>(sql`
    SELECT f.message_id, f.thread_id, t.name, m.role, m.parent_id, m.created_at,
           snippet(messages_fts, 0, ${HIT_OPEN}, ${HIT_CLOSE}, '…', 16) AS snip
    FROM messages_fts f
    JOIN messages m ON m.rowid = f.rowid
    JOIN threads t ON t.id = f.thread_id
    WHERE messages_fts MATCH ${match} ${projectId ? sql`AND t.project_id = ${projectId}` : sql``}
    ORDER BY bm25(messages_fts), m.created_at DESC
    LIMIT ${limit}`);
  return rows.map((r) => ({
    threadId: r.thread_id,
    threadName: r.name,
    messageId: r.message_id,
    parentId: r.parent_id,
    role: r.role,
    snippet: markHits(r.snip),
    createdAt: r.created_at,
  }));
}
