// The documents an artifact's sandboxed frame shows (HTML, SVG, a Mermaid diagram), and the messages
// between the app and that frame.
//
// The frame is the web app's page /sandbox/artifact (web/public/sandbox/artifact.html), loaded in an
// <iframe sandbox="allow-scripts"> (no allow-same-origin: its origin is opaque, so it cannot read the
// app's cookies or storage, nor reach into the app's window). It says `ready`; the app answers with
// `render`: the document to write in its place, and scripts to run after it (Mermaid's library and
// the call that draws the diagram). Every document carries the policy FRAME_CSP: inline script and
// style run, nothing loads from anywhere and nothing can be sent anywhere.
//
// Not an about:srcdoc frame: that inherits the app's own Content-Security-Policy, which refuses inline
// script and style, so an artifact's scripts would not run and its styles would not apply.

import { FRAME_GUARD_SCRIPT, FRAME_LEFT, inertFrames } from "./frameGuard";

/** The frame's page. */
export const FRAME_PATH = "/sandbox/artifact";
/** The script of the page "Open in new tab" opens (web/public/artifact-tab.js). */
export const TAB_SCRIPT_PATH = "/artifact-tab.js";

/** The policy inside every frame document (on top of the frame page's own). */
export const FRAME_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:";

export const FRAME_MESSAGE = {
  ready: "artifact-frame:ready",
  render: "artifact-frame:render",
  rendered: "artifact-frame:rendered",
  error: "artifact-frame:error",
  left: FRAME_LEFT,
} as const;

/** What the frame writes: `html` in place of its page, then each of `scripts`, in order. */
export interface FrameDoc {
  html: string;
  scripts: string[];
}

export type FrameSays = { type: "ready" } | { type: "rendered" } | { type: "left" } | { type: "error"; message: string };

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * The start of every frame document: standards mode, UTF-8, the policy (in <head>, where it counts),
 * and the guard that runs before anything the model wrote (frameGuard.ts: no WebRTC, no frames).
 */
const HEAD = `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${escapeHtml(FRAME_CSP)}"><script>${FRAME_GUARD_SCRIPT}</script>`;

/** An HTML artifact: the page as the model wrote it (its own doctype and <head> merge with ours). */
export function htmlFrame(content: string): FrameDoc {
  return { html: HEAD + inertFrames(content), scripts: [] };
}

const SVG_STYLE = "html,body{margin:0;height:100%;background:#fff}body{display:flex;align-items:center;justify-content:center}body>svg{max-width:100%;max-height:100%}";

/** An SVG artifact, centred on a white page. */
export function svgFrame(content: string): FrameDoc {
  return { html: `${HEAD}<style>${SVG_STYLE}</style><body>${inertFrames(content)}</body>`, scripts: [] };
}

const MERMAID_STYLE = "html,body{margin:0;background:#fff}body{padding:16px;box-sizing:border-box}#diagram{display:flex;justify-content:center}#diagram>svg{max-width:100%;height:auto}";

/**
 * Draws the diagram, then tells the app; a source Mermaid cannot parse is reported with the
 * parser's message (and nothing drawn: the app shows the source instead).
 */
const MERMAID_DRAW = `async function (source) {
  var tell = function (m) { parent.postMessage(m, "*"); };
  try {
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", suppressErrorRendering: true, theme: "default" });
    await mermaid.parse(source);
    var drawn = await mermaid.render("artifact-diagram", source);
    document.getElementById("diagram").innerHTML = drawn.svg;
    tell({ type: "${FRAME_MESSAGE.rendered}" });
  } catch (e) {
    tell({ type: "${FRAME_MESSAGE.error}", message: String((e && e.message) || e) });
  }
}`;

/**
 * A Mermaid artifact: the library (`library`, its standalone build's text) and the call that draws
 * `source`, which goes in as a JSON string (a script's text is not parsed as HTML, so nothing in the
 * source can end it).
 */
export function mermaidFrame(source: string, library: string): FrameDoc {
  return {
    html: `${HEAD}<style>${MERMAID_STYLE}</style><body><div id="diagram"></div></body>`,
    scripts: [library, `(${MERMAID_DRAW})(${JSON.stringify(source)});`],
  };
}

/** The message that hands the frame its document. */
export const renderMessage = (doc: FrameDoc) => ({ type: FRAME_MESSAGE.render, html: doc.html, scripts: doc.scripts });

/** What a message from a frame says, or null when it is none of ours (the artifact may post anything). */
export function frameSays(data: unknown): FrameSays | null {
  if (typeof data !== "object" || data === null) return null;
  const { type, message } = data as { type?: unknown; message?: unknown };
  if (type === FRAME_MESSAGE.ready) return { type: "ready" };
  if (type === FRAME_MESSAGE.rendered) return { type: "rendered" };
  if (type === FRAME_MESSAGE.left) return { type: "left" };
  if (type === FRAME_MESSAGE.error) return { type: "error", message: typeof message === "string" ? message.slice(0, 2_000) : "Unknown error" };
  return null;
}

/**
 * The page "Open in new tab" opens, as a blob: URL. Such a page has the app's origin and policy, so
 * the artifact does not run in it: it holds a frame of FRAME_PATH (sandboxed as in the app) and the
 * document as data, which the app's own script (TAB_SCRIPT_PATH) hands to the frame. In JSON inside
 * <script type="application/json">, every "<" is escaped, so nothing in the artifact can end that
 * element. `origin`: the app's (a blob: page cannot resolve a path against its own URL).
 */
export function tabPage(doc: FrameDoc, title: string, origin: string): string {
  const data = JSON.stringify(doc).replace(/</g, "\\u003c");
  const name = escapeHtml(title);
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${name}</title></head><body>` +
    `<iframe sandbox="allow-scripts" src="${escapeHtml(origin + FRAME_PATH)}" title="${name}"></iframe>` +
    `<script type="application/json" id="artifact">${data}</script>` +
    `<script src="${escapeHtml(origin + TAB_SCRIPT_PATH)}"></script>` +
    `</body></html>`
  );
}
