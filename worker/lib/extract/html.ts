// HTML: a tolerant tokenizer (no DOM): scripts, styles, templates, SVG and the like left out; the
// text in sections split at h1-h6; paragraphs and other blocks apart, list items as `- item`, table
// rows as `a | b`, <pre> as written; entities decoded (the common named ones and every numeric one).
import type { Budget } from "./budget";
import { HeadingSections, tableRows } from "./sections";
import type { Extracted } from "./types";
import { decodeXmlEntities } from "./xml";

/** Elements whose content is not text a reader sees. */
const SKIPPED = new Set(["script", "style", "template", "noscript", "svg", "math", "iframe", "object", "canvas", "select", "datalist"]);
/** Elements whose content is raw text up to their end tag (not markup). */
const RAW = new Set(["script", "style", "textarea", "title", "xmp", "noembed", "noframes"]);
const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);
/** Elements that begin and end a block of text. */
const BLOCKS = new Set([
  "address", "article", "aside", "blockquote", "body", "caption", "dd", "details", "dialog", "div", "dl", "dt", "fieldset",
  "figcaption", "figure", "footer", "form", "header", "hgroup", "hr", "html", "legend", "li", "main", "nav", "ol", "p",
  "pre", "section", "summary", "ul",
]);

const TAG = /<(\/?)([A-Za-z][A-Za-z0-9:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/y;

const endTags = new Map<string, RegExp>();
const endTagPattern = (name: string) => {
  let re = endTags.get(name);
  if (!re) endTags.set(name, (re = new RegExp(`</${name}[\\s/>]`, "gi")));
  return re;
};

export async function extractHtml(bytes: Uint8Array, budget: Budget): Promise<Extracted> {
  const html = new TextDecoder().decode(bytes);
  await budget.checkpoint();
  return { sections: htmlSections(html, budget) };
}

export function htmlSections(html: string, budget: Budget) {
  const out = new HeadingSections(budget);
  let buf = "";
  const skip: string[] = [];
  let pre = 0;
  let heading: { level: number; text: string } | null = null;
  let tableDepth = 0;
  let rows: string[][] = [];
  let row: string[] | null = null;
  let cell: string | null = null;
  let title = "";

  const flush = () => {
    const text = buf
      .split("\n")
      .map((line) => (pre ? line.replace(/\s+$/, "") : line.replace(/[ \t\r\f]+/g, " ").trim()))
      .join("\n")
      .replace(/\n{3,}/g, "\n\n");
    buf = "";
    out.block(text);
  };
  const addText = (raw: string) => {
    if (skip.length) return;
    const s = raw.includes("&") ? decodeHtmlEntities(raw) : raw;
    if (heading) heading.text += s;
    else if (cell !== null) cell += s;
    else buf += pre ? s : s.replace(/\s+/g, " ");
  };

  const open = (name: string) => {
    if (/^h[1-6]$/.test(name) && !tableDepth) {
      flush();
      heading = { level: Number(name[1]), text: "" };
      return;
    }
    switch (name) {
      case "br":
        if (heading) heading.text += " ";
        else if (cell !== null) cell += " ";
        else buf += "\n";
        return;
      case "table":
        if (++tableDepth === 1) {
          flush();
          rows = [];
        }
        return;
      case "tr":
        if (tableDepth === 1) row = [];
        return;
      case "td":
      case "th":
        if (tableDepth === 1) cell = "";
        else if (cell !== null) cell += " ";
        return;
      case "pre":
        flush();
        pre++;
        return;
      case "li":
        if (cell !== null) {
          cell += " ";
          return;
        }
        flush();
        buf = "- ";
        return;
    }
    if (BLOCKS.has(name)) {
      if (cell !== null) cell += " ";
      else flush();
    }
  };

  const close = (name: string) => {
    if (skip.length) {
      if (name === skip[skip.length - 1]) skip.pop();
      return;
    }
    if (heading && /^h[1-6]$/.test(name)) {
      out.startHeading(heading.level, heading.text);
      heading = null;
      return;
    }
    switch (name) {
      case "td":
      case "th":
        if (tableDepth === 1 && cell !== null) {
          (row ??= []).push(cell);
          cell = null;
        }
        return;
      case "tr":
        if (tableDepth === 1) {
          if (cell !== null) (row ??= []).push(cell);
          if (row) rows.push(row);
          row = null;
          cell = null;
        }
        return;
      case "table":
        if (tableDepth > 0 && --tableDepth === 0) {
          if (cell !== null) (row ??= []).push(cell);
          if (row) rows.push(row);
          row = null;
          cell = null;
          flush();
          out.block(tableRows(rows));
          rows = [];
        }
        return;
      case "pre":
        flush();
        if (pre) pre--;
        return;
    }
    if (BLOCKS.has(name)) {
      if (cell !== null) cell += " ";
      else flush();
    }
  };

  const n = html.length;
  let i = 0;
  let blocksSeen = 0;
  while (i < n) {
    const lt = html.indexOf("<", i);
    if (lt < 0) {
      addText(html.slice(i));
      break;
    }
    if (lt > i) addText(html.slice(i, lt));
    if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      i = end < 0 ? n : end + 3;
      continue;
    }
    if (html[lt + 1] === "!" || html[lt + 1] === "?") {
      const end = html.indexOf(">", lt);
      i = end < 0 ? n : end + 1;
      continue;
    }
    TAG.lastIndex = lt;
    const m = TAG.exec(html);
    if (!m) {
      addText("<");
      i = lt + 1;
      continue;
    }
    i = TAG.lastIndex;
    const name = m[2].toLowerCase();
    if (m[1]) {
      close(name);
      continue;
    }
    if (RAW.has(name)) {
      // Up to the matching end tag, whatever it holds (a script's "</div>" is not markup).
      const endTag = endTagPattern(name);
      endTag.lastIndex = i;
      const end = endTag.exec(html)?.index ?? -1;
      const body = html.slice(i, end < 0 ? n : end);
      const gt = end < 0 ? -1 : html.indexOf(">", end);
      i = gt < 0 ? n : gt + 1;
      if (skip.length || SKIPPED.has(name)) continue;
      if (name === "title") title = decodeHtmlEntities(body).replace(/\s+/g, " ").trim();
      else {
        open("p");
        addText(body);
        close("p");
      }
      continue;
    }
    const selfClosing = VOID.has(name) || m[3].trimEnd().endsWith("/");
    if (skip.length) {
      // Inside a skipped element: only its own nesting counts.
      if (name === skip[skip.length - 1] && !selfClosing) skip.push(name);
      continue;
    }
    if (SKIPPED.has(name)) {
      if (!selfClosing) skip.push(name);
      continue;
    }
    open(name);
    if (++blocksSeen % 50_000 === 0) budget.checkClock();
  }
  if (heading) {
    const h: { level: number; text: string } = heading;
    out.startHeading(h.level, h.text);
  }
  if (tableDepth) out.block(tableRows(cell !== null ? [...rows, [...(row ?? []), cell]] : row ? [...rows, row] : rows));
  flush();
  const sections = out.finish();
  // The page's title begins its text when no heading says the same.
  if (title && !sections.some((s) => "heading" in s.location && s.location.heading === title)) {
    const first = sections[0];
    if (first && "heading" in first.location && first.location.heading === "") first.text = `${title}\n\n${first.text}`;
    else sections.unshift({ location: { heading: "" }, text: title });
  }
  return sections;
}

/** HTML's common named character references (XML's five and the ones pages use most); numeric ones are all decoded. */
const HTML_ENTITIES: Record<string, string> = {
  lt: "<", gt: ">", amp: "&", quot: '"', apos: "'", nbsp: "\u00a0", ensp: "\u2002", emsp: "\u2003", thinsp: "\u2009",
  zwnj: "\u200c", zwj: "\u200d", shy: "\u00ad", copy: "©", reg: "®", trade: "™", deg: "°", plusmn: "±", times: "×",
  divide: "÷", micro: "µ", para: "¶", sect: "§", middot: "·", bull: "•", hellip: "…", prime: "′", Prime: "″",
  ndash: "–", mdash: "—", lsquo: "‘", rsquo: "’", sbquo: "‚", ldquo: "“", rdquo: "”", bdquo: "„", laquo: "«",
  raquo: "»", lsaquo: "‹", rsaquo: "›", iexcl: "¡", iquest: "¿", cent: "¢", pound: "£", yen: "¥", euro: "€",
  curren: "¤", brvbar: "¦", uml: "¨", ordf: "ª", ordm: "º", not: "¬", macr: "¯", sup1: "¹", sup2: "²", sup3: "³",
  acute: "´", cedil: "¸", frac14: "¼", frac12: "½", frac34: "¾", larr: "←", rarr: "→", uarr: "↑", darr: "↓",
  harr: "↔", lArr: "⇐", rArr: "⇒", hArr: "⇔", le: "≤", ge: "≥", ne: "≠", asymp: "≈", equiv: "≡", minus: "−",
  infin: "∞", sum: "∑", prod: "∏", radic: "√", part: "∂", nabla: "∇", isin: "∈", cap: "∩", cup: "∪", int: "∫",
  forall: "∀", exist: "∃", empty: "∅", and: "∧", or: "∨", sdot: "⋅", loz: "◊", spades: "♠", clubs: "♣",
  hearts: "♥", diams: "♦", dagger: "†", Dagger: "‡", permil: "‰", oline: "‾", frasl: "⁄", szlig: "ß",
  alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", lambda: "λ", mu: "μ", pi: "π", sigma: "σ",
  tau: "τ", phi: "φ", omega: "ω", Delta: "Δ", Sigma: "Σ", Omega: "Ω", Pi: "Π",
  AElig: "Æ", aelig: "æ", OElig: "Œ", oelig: "œ", Oslash: "Ø", oslash: "ø", Aring: "Å", aring: "å", ETH: "Ð",
  eth: "ð", THORN: "Þ", thorn: "þ", Ccedil: "Ç", ccedil: "ç", Ntilde: "Ñ", ntilde: "ñ", yuml: "ÿ", Yuml: "Ÿ",
};
// The accented vowels: &Aacute; &agrave; &ecirc; &ouml; &Atilde;...
for (const [mark, combining] of [["acute", "\u0301"], ["grave", "\u0300"], ["circ", "\u0302"], ["uml", "\u0308"], ["tilde", "\u0303"]] as const) {
  for (const v of "AEIOUYaeiouy") {
    const composed = (v + combining).normalize("NFC");
    if (composed.length === 1) HTML_ENTITIES[v + mark] = composed;
  }
}

export const decodeHtmlEntities = (s: string) => decodeXmlEntities(s, HTML_ENTITIES);
