// A file's text cut into passages for retrieval: each within one section (a page, a slide, a heading's
// part, a block of a sheet's rows), so a passage never straddles two places a citation could name;
// long sections are cut at paragraph, then line, then sentence boundaries near the target length.
import type { PassageLocation } from "../../../protocol";

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
