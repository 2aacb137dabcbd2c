// Text that may pass what one SQLite value holds. Cloudflare's SQLite takes at most 2 MB in a string
// or a row (workerd here does not enforce it, so the tests measure what is stored). A run's turn can
// pass it (an MCP tool's images, inline as base64) and so can a waiting run's point (all its turns
// and its prompt). Such text goes to `long_text` in parts; its own row keeps a mark in its place.

/** What a part holds at most, in UTF-16 units: at most 3 bytes each in UTF-8, so under 1 MB. */
export const PART_UNITS = 300_000;

/** The mark a row keeps for its text in parts. JSON, all that is kept here, never starts with `~`. */
const MARK = "~long_text:";

/** A condition true where `column` holds a mark (so a row's parts are found without reading all text). */
export const marked = (column: string) => `substr(${column}, 1, ${MARK.length}) = '${MARK}'`;

export class LongText {
  constructor(private readonly sql: SqlStorage) {}

  /** What the row keeps for `text` under `key`: the text itself when it fits, else the mark. */
  put(key: string, text: string): string {
    this.drop(key);
    if (text.length <= PART_UNITS) return text;
    split(text).forEach((part, n) => this.sql.exec("INSERT INTO long_text (key, n, part) VALUES (?, ?, ?)", key, n, part));
    return MARK + key;
  }

  /** The text a row's `kept` value stands for. */
  get(kept: string): string {
    if (!kept.startsWith(MARK)) return kept;
    return this.sql
      .exec<{ part: string }>("SELECT part FROM long_text WHERE key = ? ORDER BY n", kept.slice(MARK.length))
      .toArray()
      .map((r) => r.part)
      .join("");
  }

  /** Forgets the parts of the text a row kept (nothing for text kept whole). */
  forget(kept: string): void {
    if (kept.startsWith(MARK)) this.drop(kept.slice(MARK.length));
  }

  private drop(key: string): void {
    this.sql.exec("DELETE FROM long_text WHERE key = ?", key);
  }
}

/** `text` in parts of at most PART_UNITS, never cutting a surrogate pair in two (each part is sound UTF-8). */
export function split(text: string, units = PART_UNITS): string[] {
  const parts: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(at + units, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    parts.push(text.slice(at, end));
    at = end;
  }
  return parts;
}
