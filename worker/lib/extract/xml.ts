// A small, tolerant XML reader for the Office formats' parts (and the tag scanning HTML reuses): one
// pass of a regular expression over the text, calling back for each start tag, end tag and run of
// text. Element names are given without their namespace prefix (`w:p` → `p`), as the Office formats
// use fixed prefixes in practice but do not promise them. No DTDs, no validation: what matters is the
// text and a few attributes.

export interface XmlHandler {
  /** A start tag (also an empty-element tag, then `selfClosing`); `attrs` is the tag's attribute text, read with attr(). */
  open?(name: string, attrs: string, selfClosing: boolean): void;
  close?(name: string): void;
  /** Character data between tags, entities decoded (CDATA as is). */
  text?(text: string): void;
}

// A tag (its name with an optional prefix, then attributes, quoted values may hold `>`), or CDATA, a
// comment, a processing instruction or a declaration.
const TOKEN = /<(?:(\/?)(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>|!\[CDATA\[([\s\S]*?)\]\]>|!--[\s\S]*?-->|\?[\s\S]*?\?>|![^>]*>)/g;

/** Calls `handler` for each tag and text run of `xml`, in order. */
export function scanXml(xml: string, handler: XmlHandler, decode: (s: string) => string = decodeXmlEntities): void {
  const { open, close, text } = handler;
  TOKEN.lastIndex = 0;
  let at = 0;
  for (let m = TOKEN.exec(xml); m; m = TOKEN.exec(xml)) {
    if (text && m.index > at) {
      const raw = xml.slice(at, m.index);
      text(raw.includes("&") ? decode(raw) : raw);
    }
    at = TOKEN.lastIndex;
    const name = m[2];
    if (name !== undefined) {
      if (m[1]) close?.(name);
      else {
        const selfClosing = m[4] === "/";
        open?.(name, m[3], selfClosing);
        if (selfClosing) close?.(name);
      }
    } else if (m[5] !== undefined && text) text(m[5]);
  }
  if (text && at < xml.length) {
    const raw = xml.slice(at);
    text(raw.includes("&") ? decode(raw) : raw);
  }
}

const attrPatterns = new Map<string, RegExp>();

/**
 * The value of attribute `name`, or undefined. By its local name (`val` finds `w:val`), prefixed or
 * not; a prefixed name (`r:id`) finds only a prefixed attribute of that local name, whatever its prefix
 * (so `r:id` is not `id`). `xmlns:` declarations never match.
 */
export function attr(attrs: string, name: string): string | undefined {
  let pattern = attrPatterns.get(name);
  if (!pattern) {
    const colon = name.indexOf(":");
    const prefix = colon < 0 ? "(?:(?!xmlns:)[A-Za-z_][\\w.-]*:)?" : "(?!xmlns:)[A-Za-z_][\\w.-]*:";
    pattern = new RegExp(`(?:^|\\s)${prefix}${name.slice(colon + 1)}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`);
    attrPatterns.set(name, pattern);
  }
  const m = pattern.exec(attrs);
  if (!m) return undefined;
  const value = m[1] ?? m[2];
  return value.includes("&") ? decodeXmlEntities(value) : value;
}

const XML_ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function fromCodePoint(n: number): string {
  return Number.isFinite(n) && n > 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff) ? String.fromCodePoint(n) : "\ufffd";
}

/** `&lt;` `&#233;` `&#xE9;` and the rest of XML's five; an unknown name stays as written. */
export function decodeXmlEntities(s: string, named: Record<string, string> = XML_ENTITIES): string {
  return s.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));?/g, (whole, dec, hex, name) => {
    if (dec) return fromCodePoint(Number.parseInt(dec, 10));
    if (hex) return fromCodePoint(Number.parseInt(hex, 16));
    return named[name] ?? named[name.toLowerCase()] ?? whole;
  });
}
