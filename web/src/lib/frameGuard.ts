// What keeps an artifact's frame from sending anything out where its Content-Security-Policy cannot.
//
// The frame's policy (FRAME_CSP, and the Worker's header for /sandbox/) stops fetch, images, forms,
// prefetch, sockets and beacons, and the app's frame-src stops the frame from navigating away. WebRTC
// is the gap: no Chromium enforces CSP's `webrtc 'block'` (it is sent anyway, for when one does), and
// no permissions policy covers a peer connection, so an artifact could gather ICE candidates against
// a STUN host of its choosing and leak through DNS and UDP. So the frame's own first script, which
// runs before any of the artifact's, replaces the peer connection constructors with ones that refuse.
//
// A nested frame would bring a fresh window with the real constructor (an about:blank or srcdoc
// frame is same-origin with the artifact, and CSP cannot refuse either). So an artifact holds no
// frame: the tags are renamed in its markup before it is parsed (the parser's frames would be live
// before any script of ours could run again) and in every HTML string a DOM call parses; every DOM
// call that inserts nodes refuses a frame before it is inserted; document.write, whose written
// scripts would run inside the call, is refused. A frame is never in the document, so no window but
// the artifact's own ever exists, and that one has no peer connection.

/** What the frame posts when its page goes away (artifactFrame.ts's FRAME_MESSAGE.left). */
export const FRAME_LEFT = "artifact-frame:left";

/** The elements that would open a browsing context (and a window with WebRTC in it). */
const FRAME_TAGS = ["iframe", "frame", "object", "embed", "fencedframe"];
const FRAME_TAG = new RegExp(`<(/?)(${FRAME_TAGS.join("|")})(?=[\\s/>])`, "gi");

/** `html` with its frame tags renamed (`<iframe` becomes `<x-blocked-iframe`), so none opens a window. */
export function inertFrames(html: string): string {
  return html.replace(FRAME_TAG, "<$1x-blocked-$2");
}

/**
 * The guard itself, run as the frame document's first script (its source is what goes in: it must
 * stay self-contained). It runs in Chromium only, inside the sandboxed frame. `tags`: FRAME_TAGS;
 * `leftMessage`: what it posts to the app when its page is about to go away.
 */
function guardFrame(tags: string[], leftMessage: string): void {
  // Leaving the page is the one way out the frame itself cannot refuse (the app's frame-src stops it,
  // and Chromium shows its own blocked page): tell the app, which says so instead. Before the page
  // unloads: by pagehide, the frame's window is no longer the one the app knows.
  addEventListener("beforeunload", () => parent.postMessage({ type: leftMessage }, "*"));

  const refuse = (what: string) => new DOMException(`${what} is not available in an artifact`, "SecurityError");
  for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection"]) {
    const refused = function () {
      throw refuse("WebRTC");
    };
    Object.defineProperty(window, name, { value: refused, writable: false, configurable: false, enumerable: false });
  }

  const tag = new RegExp(`<(/?)(${tags.join("|")})(?=[\\s/>])`, "gi");
  const selector = tags.join(",");
  const inert = (v: unknown) => (typeof v === "string" ? v.replace(tag, "<$1x-blocked-$2") : v);
  const holdsFrame = (v: unknown) =>
    (v instanceof Element && v.matches(selector)) || ((v instanceof Element || v instanceof DocumentFragment) && v.querySelector(selector) !== null);
  /**
   * `owner[name]`, a function that inserts nodes or parses HTML: a node that is or holds a frame is
   * refused before it is inserted, and HTML in the arguments at `html` loses its frame tags.
   */
  const guard = (owner: object | undefined, name: string, html: number[] = []) => {
    const original = owner && (Object.getOwnPropertyDescriptor(owner, name)?.value as ((...a: unknown[]) => unknown) | undefined);
    if (typeof original !== "function") return;
    const guarded = function (this: unknown, ...args: unknown[]) {
      if (args.some(holdsFrame)) throw refuse("A frame");
      return original.apply(this, args.map((a, i) => (html.includes(i) ? inert(a) : a)));
    };
    Object.defineProperty(owner, name, { value: guarded, writable: false, configurable: false });
  };
  const guardSetter = (owner: object, name: string) => {
    const d = Object.getOwnPropertyDescriptor(owner, name);
    if (!d?.set) return;
    const set = d.set;
    Object.defineProperty(owner, name, {
      get: d.get,
      set(this: unknown, value: unknown) {
        if (holdsFrame(value)) throw refuse("A frame");
        set.call(this, inert(value));
      },
      configurable: false,
    });
  };

  const parents = [Element.prototype, Document.prototype, DocumentFragment.prototype];
  const children = [Element.prototype, CharacterData.prototype, DocumentType.prototype];
  for (const name of ["appendChild", "insertBefore", "replaceChild"]) guard(Node.prototype, name);
  for (const owner of parents) for (const name of ["append", "prepend", "replaceChildren", "moveBefore"]) guard(owner, name);
  for (const owner of children) for (const name of ["before", "after", "replaceWith"]) guard(owner, name);
  guard(Element.prototype, "insertAdjacentElement");
  guard(Element.prototype, "insertAdjacentHTML", [1]);
  for (const owner of [Element.prototype, ShadowRoot.prototype]) for (const name of ["setHTMLUnsafe", "setHTML"]) guard(owner, name, [0]);
  guard(ShadowRoot.prototype, "moveBefore");
  guard(Range.prototype, "insertNode");
  guard(Range.prototype, "surroundContents");
  guard(Range.prototype, "createContextualFragment", [0]);
  guard(Document.prototype, "execCommand", [2]);
  guard(Document, "parseHTMLUnsafe", [0]);
  guard(DOMParser.prototype, "parseFromString", [0]);
  for (const [owner, name] of [
    [Element.prototype, "innerHTML"],
    [Element.prototype, "outerHTML"],
    [ShadowRoot.prototype, "innerHTML"],
    [Document.prototype, "body"],
  ] as const)
    guardSetter(owner, name);
  // Scripts written by document.write run inside the call, before any sweep after it.
  for (const name of ["write", "writeln"]) {
    const refused = () => {
      throw refuse("document.write");
    };
    Object.defineProperty(Document.prototype, name, { value: refused, writable: false, configurable: false });
  }
  // Behind all of that: a frame that got in by a way not listed here is removed as soon as it is seen.
  new MutationObserver((records) => {
    for (const r of records) for (const n of Array.from(r.addedNodes)) if (holdsFrame(n)) for (const el of [n as Element, ...Array.from((n as Element).querySelectorAll(selector))]) if (el.matches(selector)) el.remove();
  }).observe(document, { childList: true, subtree: true });
}

/** The guard as the first script of a frame document. */
export const FRAME_GUARD_SCRIPT = `(${guardFrame.toString()})(${JSON.stringify(FRAME_TAGS)}, ${JSON.stringify(FRAME_LEFT)});`;
