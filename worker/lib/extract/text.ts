// The text formats: Markdown in sections split at its headings (ATX `# …` and setext, not inside fenced
// code or front matter); plain text and source code as one section; JSON as one section (a minified
// document laid out on lines first, its literals untouched); CSV as sections of rows at `{ sheet: "", row }`.
import { UnprocessableError, type Budget } from "./budget";
import { RowSections } from "./rows";
import type { Section } from "./types";

export const decodeUtf8 = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** Plain text (and source code): one section under no heading. */
export function plainSections(text: string, budget: Budget): Section[] {
  const t = text.replace(/\r\n?/g, "\n").replace(/\s+$/, "");
  budget.addChars(t.length);
  return t.trim() ? [{ location: { heading: "" }, text: t }] : [];
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A line that cannot be a setext heading's text: blank, a list item, a quote, a table row, a fence or an ATX heading. */
const NOT_SETEXT_TEXT = /^\s*$|^ {0,3}([-+*>|]|\d+[.)]|#{1,6}(\s|$)|`{3}|~{3})/;

/** Markdown: sections split at headings, each section's text as written (its heading line first). */
export function markdownSections(text: string, budget: Budget): Section[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const sections: Section[] = [];
  let heading = "";
  let current: string[] = [];
  let fence: string | null = null;
  let frontMatter = lines[0]?.trim() === "---";
  const flush = () => {
    const body = current.join("\n").replace(/\s+$/, "").replace(/^\n+/, "");
    if (body.trim()) sections.push({ location: { heading }, text: body });
    current = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    budget.addChars(line.length + 1);
    if (frontMatter) {
      current.push(line);
      if (i > 0 && /^(---|\.\.\.)\s*$/.test(line)) frontMatter = false;
      continue;
    }
    const f = FENCE.exec(line);
    if (fence) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length && line.trim() === f[1]) fence = null;
      current.push(line);
      continue;
    }
    if (f) {
      fence = f[1];
      current.push(line);
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      flush();
      heading = (atx[2] ?? "").trim();
      current.push(line);
      continue;
    }
    const next = lines[i + 1];
    if (next !== undefined && SETEXT.test(next) && !NOT_SETEXT_TEXT.test(line) && (current.length === 0 || /^\s*$/.test(current[current.length - 1]))) {
      flush();
      heading = line.trim();
      current.push(line, next);
      budget.addChars(next.length + 1);
      i++;
      continue;
    }
    current.push(line);
  }
  flush();
  return sections;
}

/** JSON: valid or refused; one section, laid out on lines when it came minified. */
export function jsonSections(text: string, budget: Budget): Section[] {
  try {
    JSON.parse(text);
  } catch (err) {
    throw new UnprocessableError(`This JSON could not be read: ${err instanceof Error ? err.message : String(err)}`);
  }
  const lines = text.split("\n").length;
  const laidOut = text.length / lines > 400 ? layOutJson(text) : text;
  return plainSections(laidOut, budget);
}

/** Valid JSON with a line per member and element, indented by two spaces; strings and numbers kept as written. */
export function layOutJson(text: string): string {
  const out: string[] = [];
  let depth = 0;
  let i = 0;
  const n = text.length;
  const newline = () => out.push("\n", "  ".repeat(depth));
  while (i < n) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out.push(text.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    if (c === "{" || c === "[") {
      // An empty object or array stays on its line.
      let j = i + 1;
      while (j < n && /\s/.test(text[j])) j++;
      if (text[j] === (c === "{" ? "}" : "]")) {
        out.push(c + text[j]);
        i = j + 1;
        continue;
      }
      out.push(c);
      depth++;
      newline();
    } else if (c === "}" || c === "]") {
      depth = Math.max(0, depth - 1);
      newline();
      out.push(c);
    } else if (c === ",") {
      out.push(c);
      newline();
    } else if (c === ":") out.push(": ");
    else if (!/\s/.test(c)) out.push(c);
    i++;
  }
  return out.join("");
}

/** The delimiter of a CSV: the most frequent of , ; tab | outside quotes in its first line ("," when none). */
export function csvDelimiter(text: string): string {
  const counts = new Map<string, number>();
  let quoted = false;
  for (let i = 0; i < text.length && i < 65_536; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "\n" || c === "\r")) break;
    else if (!quoted && (c === "," || c === ";" || c === "\t" || c === "|")) counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let best = ",";
  let most = 0;
  for (const [c, n] of counts) if (n > most) [best, most] = [c, n];
  return best;
}

/** CSV (RFC 4180: quoted fields, doubled quotes, line breaks inside quotes) as sections of rows; row = the record's number. */
export function csvSections(text: string, budget: Budget): Section[] {
  const delimiter = csvDelimiter(text);
  const sections: Section[] = [];
  const rows = new RowSections("", sections, budget);
  let record: string[] = [];
  let field = "";
  let quoted = false;
  let rowNumber = 1;
  const n = text.length;
  const endRecord = () => {
    record.push(field);
    rows.row(rowNumber++, record);
    record = [];
    field = "";
  };
  let i = 0;
  while (i < n) {
    const c = text[i];
    if (quoted) {
      // Up to the next quote: the field's end, or a doubled quote.
      const q = text.indexOf('"', i);
      if (q < 0) {
        field += text.slice(i);
        break;
      }
      field += text.slice(i, q);
      if (text[q + 1] === '"') {
        field += '"';
        i = q + 2;
      } else {
        quoted = false;
        i = q + 1;
      }
    } else if (c === '"' && field === "") {
      quoted = true;
      i++;
    } else if (c === delimiter) {
      record.push(field);
      field = "";
      i++;
    } else if (c === "\n" || c === "\r") {
      i += c === "\r" && text[i + 1] === "\n" ? 2 : 1;
      endRecord();
    } else {
      // An unquoted run, up to the next delimiter or line break.
      let j = i + 1;
      while (j < n && text[j] !== delimiter && text[j] !== "\n" && text[j] !== "\r") j++;
      field += text.slice(i, j);
      i = j;
    }
  }
  if (field || record.length) endRecord();
  rows.flush();
  return sections;
}
