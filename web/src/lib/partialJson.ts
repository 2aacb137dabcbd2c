// A tool call's input while it streams (pipeline:stream tool_input) is JSON cut anywhere: mid-key,
// mid-string, mid-escape. What the artifact preview needs of it is its top-level string fields (title,
// type, content so far), so this reads those tolerantly instead of waiting for JSON.parse to succeed.

/** The top-level string fields of an object's JSON text that may be unfinished. */
export interface PartialStrings {
  /** Each top-level key whose value is a string: the whole string, or as much of it as has come. */
  strings: Record<string, string>;
  /** The key whose string is still being written (the text ends inside it); null otherwise. */
  open: string | null;
}

const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/**
 * The string fields of `json`, an object's JSON text cut at any point. Other values (numbers,
 * nested objects) are skipped; a key not yet whole, or text that is not an object, ends the reading
 * with what was read. An escape cut short (`\`, `\u00`) is left out until the rest of it comes.
 */
export function partialStrings(json: string): PartialStrings {
  const strings: Record<string, string> = {};
  let i = skipSpace(json, 0);
  if (json[i] !== "{") return { strings, open: null };
  i++;
  for (;;) {
    i = skipSpace(json, i);
    if (i >= json.length || json[i] === "}") break;
    if (json[i] === ",") {
      i++;
      continue;
    }
    if (json[i] !== '"') break;
    const key = readString(json, i);
    if (!key.closed) break;
    i = skipSpace(json, key.end);
    if (json[i] !== ":") break;
    i = skipSpace(json, i + 1);
    if (i >= json.length) break;
    if (json[i] === '"') {
      const value = readString(json, i);
      strings[key.value] = value.value;
      if (!value.closed) return { strings, open: key.value };
      i = value.end;
    } else {
      i = skipValue(json, i);
      if (i < 0) break;
    }
  }
  return { strings, open: null };
}

function skipSpace(json: string, i: number): number {
  while (i < json.length && (json[i] === " " || json[i] === "\n" || json[i] === "\r" || json[i] === "\t")) i++;
  return i;
}

/**
 * The string whose opening quote is at `start`: its value so far, whether it closed, and the index
 * after its closing quote. Plain runs are sliced whole (an artifact's content may be a megabyte).
 */
function readString(json: string, start: number): { value: string; closed: boolean; end: number } {
  let value = "";
  let run = start + 1;
  let i = run;
  while (i < json.length) {
    const ch = json[i];
    if (ch === '"') return { value: value + json.slice(run, i), closed: true, end: i + 1 };
    if (ch !== "\\") {
      i++;
      continue;
    }
    value += json.slice(run, i);
    const kind = json[i + 1];
    if (kind === undefined) return unfinished(value, i);
    if (kind === "u") {
      const hex = json.slice(i + 2, i + 6);
      if (hex.length < 4) return unfinished(value, i);
      value += /^[0-9a-fA-F]{4}$/.test(hex) ? String.fromCharCode(parseInt(hex, 16)) : hex;
      i += 6;
    } else {
      value += ESCAPES[kind] ?? kind;
      i += 2;
    }
    run = i;
  }
  return unfinished(value + json.slice(run), json.length);
}

/** A string the text ends inside: a high surrogate whose pair has not come yet waits for it. */
function unfinished(value: string, end: number): { value: string; closed: false; end: number } {
  const last = value.charCodeAt(value.length - 1);
  return { value: last >= 0xd800 && last <= 0xdbff ? value.slice(0, -1) : value, closed: false, end };
}

/** The index after the value (not a string) at `i`, or -1 when the text ends first. */
function skipValue(json: string, i: number): number {
  let depth = 0;
  while (i < json.length) {
    const ch = json[i];
    if (ch === '"') {
      const s = readString(json, i);
      if (!s.closed) return -1;
      i = s.end;
      continue;
    }
    if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      if (depth === 0) return i;
      depth--;
    } else if (ch === "," && depth === 0) return i;
    i++;
  }
  return -1;
}
