// A file's text cut into passages for retrieval: each within one section (a page, a slide, a heading's
// part, a block of a sheet's rows), so a passage never straddles two places a citation could name;
// long sections are cut at paragraph, then line, then sentence boundaries near the target length.
import type { PassageLocation } from "../../protocol";
import { queryTerms } from "./match-query";

export interface Passage {
  location: PassageLocation;
  text: string;
}

/** About 250 tokens: long enough to carry an answer, short enough that a few fit any request. */
export const PASSAGE_CHARS = 1_000;
/** A passage never runs past this (a section without breaks is cut hard). */
const MAX_PASSAGE_CHARS = 1_600;

/** The sections' text as passages, in order; empty sections leave none. */
export function cutPassages(sections: Passage[]): Passage[] {
  const out: Passage[] = [];
  for (const section of sections) {
    for (const text of pieces(section.text.trim())) out.push({ location: section.location, text });
  }
  return out;
}

function pieces(text: string): string[] {
  if (!text) return [];
  if (text.length <= MAX_PASSAGE_CHARS) return [text];
  const out: string[] = [];
  let rest = text;
  while (rest.length > MAX_PASSAGE_CHARS) {
    const at = breakAt(rest);
    out.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trimStart();
  }
  if (rest.trim()) out.push(rest.trim());
  return out.filter(Boolean);
}

/** Where to cut: the last paragraph, line or sentence break between the target and the maximum, else the maximum. */
function breakAt(text: string): number {
  const window = text.slice(0, MAX_PASSAGE_CHARS);
  for (const mark of ["\n\n", "\n", ". ", " "]) {
    const at = window.lastIndexOf(mark);
    if (at >= PASSAGE_CHARS * 0.6) return at + mark.length;
  }
  return MAX_PASSAGE_CHARS;
}

/**
 * The passages that best match `question`, best first: BM25 over this list alone (a long attachment's
 * passages, held in memory by the thread's object; a project's are ranked by FTS5 in the owner's).
 */
export function rankPassages(passages: Passage[], question: string, limit: number): Passage[] {
  const terms = queryTerms(question);
  if (terms.length === 0 || passages.length === 0) return [];
  const docs = passages.map((p) => tokens(p.text));
  const avg = docs.reduce((n, d) => n + d.length, 0) / docs.length || 1;
  const df = new Map(terms.map((t) => [t, docs.filter((d) => d.includes(t)).length]));
  const score = (d: string[]) =>
    terms.reduce((sum, t) => {
      const f = d.filter((w) => w === t).length;
      if (!f) return sum;
      const idf = Math.log(1 + (docs.length - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
      return sum + (idf * f * 2.2) / (f + 1.2 * (0.25 + 0.75 * (d.length / avg)));
    }, 0);
  return docs
    .map((d, i) => ({ i, s: score(d) }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s)
    .slice(0, limit)
    .map((x) => passages[x.i]);
}

const tokens = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
