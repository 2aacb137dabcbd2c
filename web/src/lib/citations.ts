// Numbered references for an answer's citations. Sources are numbered by URL, in order of first
// use in the text; each citation's `at` (the offset in the answer's text where its passage ends)
// gets a mark with its numbers.
//
// The marks go into the markdown *source* as placeholder tokens (private-use characters around the
// numbers), which markdown leaves alone as plain text; after rendering and sanitizing, the
// placeholders found in text nodes become <sup> links (citationMarks.ts). Where an offset falls
// inside markdown syntax that would break or swallow a token (a code span or block, a link, raw
// HTML, an escape), the mark moves to the end of that construct.

import { Lexer, type Token } from "marked";
import type { CitationAt } from "./webActivity";

export interface NumberedSource {
  n: number;
  url: string;
  title: string | null;
  /** The passages cited from it, each once, in order of use. */
  quotes: string[];
}

export interface CitationMark {
  at: number;
  numbers: number[];
}

export interface NumberedCitations {
  sources: NumberedSource[];
  marks: CitationMark[];
}

export const NO_CITATIONS: NumberedCitations = { sources: [], marks: [] };

/** The sources and marks of `citations`; only those ending within the first `textLength` characters (a streaming answer). */
export function numberCitations(citations: readonly CitationAt[], textLength = Infinity): NumberedCitations {
  const inText = citations.map((c, i) => ({ c, i })).filter(({ c }) => c.at >= 0 && c.at <= textLength);
  inText.sort((a, b) => a.c.at - b.c.at || a.i - b.i);
  const byUrl = new Map<string, NumberedSource>();
  const marks: CitationMark[] = [];
  for (const { c } of inText) {
    let source = byUrl.get(c.url);
    if (!source) {
      source = { n: byUrl.size + 1, url: c.url, title: c.title, quotes: [] };
      byUrl.set(c.url, source);
    }
    source.title ??= c.title;
    const quote = c.citedText.trim();
    if (quote && !source.quotes.includes(quote)) source.quotes.push(quote);
    const last = marks[marks.length - 1];
    if (last?.at === c.at) {
      if (!last.numbers.includes(source.n)) last.numbers.push(source.n);
    } else marks.push({ at: c.at, numbers: [source.n] });
  }
  return { sources: [...byUrl.values()], marks };
}

export const MARK_OPEN = "\uE000";
export const MARK_CLOSE = "\uE001";
const PLACEHOLDER_CHARS = /[\uE000\uE001]/g;

/** The placeholder for a mark's numbers. */
export const markToken = (numbers: readonly number[]) => `${MARK_OPEN}${numbers.join(",")}${MARK_CLOSE}`;

interface Span {
  start: number;
  end: number;
  block: boolean;
}

const BLOCK_UNSAFE = new Set(["code", "html", "hr", "def"]);
const INLINE_UNSAFE = new Set(["codespan", "link", "image", "html", "escape"]);

/** Children of a token, whatever its kind keeps them in (inline tokens, list items, table cells). */
function childrenOf(t: Token): Token[] {
  const any = t as { tokens?: Token[]; items?: Token[]; header?: { tokens: Token[] }[]; rows?: { tokens: Token[] }[][] };
  if (any.items) return any.items;
  if (any.header || any.rows) return [...(any.header ?? []), ...(any.rows ?? []).flat()].flatMap((cell) => cell.tokens);
  return any.tokens ?? [];
}

/**
 * Source ranges where a token must not go. Top-level blocks are located exactly (their raws
 * concatenate to the source); an inline construct is found by its raw text from where the previous
 * one ended within its block: one that no longer reads the same in the source (a multi-line span in
 * an indented list item) is not found and left unprotected, which the DOM pass makes up for.
 */
function unsafeSpans(source: string): Span[] {
  const spans: Span[] = [];
  let offset = 0;
  for (const block of Lexer.lex(source, { gfm: true, breaks: true })) {
    const start = offset;
    offset += block.raw.length;
    if (BLOCK_UNSAFE.has(block.type)) {
      spans.push({ start, end: offset, block: true });
      continue;
    }
    let cursor = start;
    const visit = (tokens: Token[]) => {
      for (const t of tokens) {
        if (INLINE_UNSAFE.has(t.type) || BLOCK_UNSAFE.has(t.type)) {
          const at = source.indexOf(t.raw, cursor);
          if (at >= 0 && at + t.raw.length <= offset) {
            spans.push({ start: at, end: at + t.raw.length, block: BLOCK_UNSAFE.has(t.type) });
            cursor = at + t.raw.length;
          }
        } else visit(childrenOf(t));
      }
    };
    visit(childrenOf(block));
  }
  return spans;
}

/** `source` with each mark's token inserted where its passage ends (moved out of unsafe constructs). */
export function placeCitationMarks(source: string, marks: readonly CitationMark[]): string {
  // The model's own text must not be able to fake a mark.
  const text = source.replace(PLACEHOLDER_CHARS, "\uFFFD");
  if (marks.length === 0) return text;
  const spans = unsafeSpans(text);
  const inserts = new Map<number, { numbers: number[]; block: boolean }>();
  for (const mark of marks) {
    let at = Math.min(Math.max(mark.at, 0), text.length);
    // After the passage's last word, not on the next line (where a token could undo a list or heading).
    while (at > 0 && /\s/.test(text[at - 1])) at--;
    let block = false;
    const inside = spans.find((s) => s.start < at && at < s.end);
    if (inside) {
      at = inside.end;
      block = inside.block;
      // A block's token goes after its last line, as a paragraph of its own.
      if (block) while (at > inside.start && /\s/.test(text[at - 1])) at--;
    }
    const entry = inserts.get(at) ?? { numbers: [], block: false };
    for (const n of mark.numbers) if (!entry.numbers.includes(n)) entry.numbers.push(n);
    entry.block ||= block;
    inserts.set(at, entry);
  }
  let out = "";
  let from = 0;
  for (const at of [...inserts.keys()].sort((a, b) => a - b)) {
    const { numbers, block } = inserts.get(at)!;
    const token = markToken(numbers);
    out += text.slice(from, at) + (block ? `\n\n${token}\n\n` : token);
    from = at;
  }
  return out + text.slice(from);
}
