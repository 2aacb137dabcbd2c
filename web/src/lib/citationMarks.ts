// The second half of numbered references (citations.ts places the placeholders): in the rendered,
// sanitized answer, each placeholder becomes <sup><a href="#…">[n]</a></sup>, built with DOM calls
// after sanitizing (so none of it is the model's HTML). A placeholder that ended up inside a link or
// code moves out after it; numbers whose placeholder did not survive at all (swallowed by some
// construct) are added at the end of the answer, so no source loses its reference.

import { MARK_CLOSE, MARK_OPEN, type NumberedSource } from "./citations";

const TOKEN = new RegExp(`${MARK_OPEN}([\\d,]*)${MARK_CLOSE}`, "g");
const STRAY = new RegExp(`[${MARK_OPEN}${MARK_CLOSE}]`, "g");
const SHOW_TEXT = 4; // NodeFilter.SHOW_TEXT (this runs in DOMPurify's document)

/** The id of source `n`'s entry in the answer's list of sources. */
export const sourceAnchor = (prefix: string, n: number) => `${prefix}-source-${n}`;

/** A reference's tooltip: the source, and what the answer took from it. */
export function referenceTitle(source: NumberedSource | undefined): string {
  if (!source) return "";
  const quote = source.quotes[0];
  const name = source.title || source.url;
  // Escapes, not the characters: this text may be bundled into a page of another encoding (tests).
  return quote ? `${name}: \u201c${quote.length > 240 ? quote.slice(0, 239) + "\u2026" : quote}\u201d` : name;
}

function reference(doc: Document, n: number, source: NumberedSource | undefined, prefix: string): HTMLElement {
  const sup = doc.createElement("sup");
  sup.className = "cite-ref";
  const a = doc.createElement("a");
  a.setAttribute("href", `#${sourceAnchor(prefix, n)}`);
  a.setAttribute("data-cite", String(n));
  a.setAttribute("title", referenceTitle(source));
  a.setAttribute("aria-label", `Source ${n}${source?.title ? `: ${source.title}` : ""}`);
  a.textContent = `[${n}]`;
  sup.append(a);
  return sup;
}

/** Replaces the placeholders in `root` (rendered answer) with references to `sources`. */
export function renderCitationMarks(root: HTMLElement, sources: readonly NumberedSource[], prefix: string): void {
  const doc = root.ownerDocument;
  const bySource = new Map(sources.map((s) => [s.n, s]));
  const placed = new Set<number>();
  const refs = (numbers: number[]) => numbers.filter((n) => bySource.has(n)).map((n) => (placed.add(n), reference(doc, n, bySource.get(n), prefix)));

  const walker = doc.createTreeWalker(root, SHOW_TEXT);
  const nodes: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.nodeValue?.includes(MARK_OPEN)) nodes.push(node as Text);
  }
  for (const node of nodes) {
    const text = node.nodeValue ?? "";
    // Inside a link or code a reference cannot sit: it goes right after the construct.
    const host = node.parentElement?.closest(".code-block, pre, code, a");
    if (host && root.contains(host)) {
      const numbers = [...text.matchAll(TOKEN)].flatMap((m) => m[1].split(",").map(Number));
      node.nodeValue = text.replace(TOKEN, "").replace(STRAY, "");
      host.after(...refs(numbers));
      continue;
    }
    const parts: (string | Node)[] = [];
    let from = 0;
    for (const m of text.matchAll(TOKEN)) {
      parts.push(text.slice(from, m.index));
      parts.push(...refs(m[1].split(",").map(Number)));
      from = m.index + m[0].length;
    }
    parts.push(text.slice(from));
    node.replaceWith(...parts.map((p) => (typeof p === "string" ? p.replace(STRAY, "") : p)).filter((p) => p !== ""));
  }

  const missing = sources.filter((s) => !placed.has(s.n)).map((s) => s.n);
  if (missing.length) {
    const blocks = root.querySelectorAll("p, li, h1, h2, h3, h4, h5, h6, td, th, blockquote");
    (blocks[blocks.length - 1] ?? root).append(...refs(missing));
  }
}
