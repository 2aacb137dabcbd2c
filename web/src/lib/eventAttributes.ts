// Inline event handlers (onerror=, onclick=, …) taken out of HTML as text, before any parser sees it.
// Chromium checks the page's Content-Security-Policy as it parses such an attribute, even in an inert
// document (DOMParser's, which DOMPurify sanitizes in): nothing runs, but the page reports a violation
// for text the model wrote. DOMPurify still refuses every on* attribute (safeHtml.ts); this only keeps
// them from reaching its parser. Start tags are read as the HTML tokenizer reads them: a name, then
// attributes separated by white space or "/", each with an optional value, quoted or not.

const SPACE = /[\t\n\f\r ]/;

/** `html` without the event-handler attributes of its start tags; everything else is kept as it was. */
export function dropEventHandlers(html: string): string {
  let out = "";
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt === -1 || lt === html.length - 1) break;
    if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      const stop = end === -1 ? html.length : end + 3;
      out += html.slice(i, stop);
      i = stop;
    } else if (/[A-Za-z]/.test(html[lt + 1])) {
      out += html.slice(i, lt);
      i = startTag(html, lt, (kept) => (out += kept));
    } else {
      out += html.slice(i, lt + 1);
      i = lt + 1;
    }
  }
  return out + html.slice(i);
}

/** Reads the start tag at `at`, giving its text without event handlers to `emit`; where it ends. */
function startTag(html: string, at: number, emit: (kept: string) => void): number {
  let i = at + 1;
  while (i < html.length && !SPACE.test(html[i]) && html[i] !== "/" && html[i] !== ">") i++;
  emit(html.slice(at, i));
  while (i < html.length && html[i] !== ">") {
    const from = i;
    while (i < html.length && (SPACE.test(html[i]) || html[i] === "/")) i++;
    const nameAt = i;
    // The first character of a name may be "=", as the tokenizer takes it.
    if (html[i] === "=") i++;
    while (i < html.length && !SPACE.test(html[i]) && !"/>=".includes(html[i])) i++;
    const name = html.slice(nameAt, i);
    let j = i;
    while (j < html.length && SPACE.test(html[j])) j++;
    if (html[j] === "=") {
      j++;
      while (j < html.length && SPACE.test(html[j])) j++;
      const quote = html[j];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, j + 1);
        j = close === -1 ? html.length : close + 1;
      } else while (j < html.length && !SPACE.test(html[j]) && html[j] !== ">") j++;
      i = j;
    }
    if (i === from) i++; // nothing was read: a character no attribute can begin with, kept as it is
    emit(/^on/i.test(name) ? " " : html.slice(from, i));
  }
  if (i < html.length) emit(">");
  return Math.min(i + 1, html.length);
}
