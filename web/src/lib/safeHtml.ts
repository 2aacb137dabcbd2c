// Model output is untrusted HTML: it may try to run script, load remote resources (which tells a
// third party that the page is open, and what it asked for), take input, restyle the page or lay an
// overlay over it. What this lets through can do none of that:
// - no script: DOMPurify's defaults, plus every on* attribute refused outright (and taken out of the
//   text before it is parsed at all: eventAttributes.ts);
// - nothing loads from elsewhere: an image from another host (imageSource.ts) becomes a link to it,
//   media and frames are dropped, and no attribute may point at an outside resource (srcset,
//   background, poster, ping, an SVG reference that is not to the same document);
// - no forms or controls (nor their text: a button's label is not prose), no <style>, <link>,
//   <meta> or <base>, no style attributes, and only the class names our own markdown renderer
//   writes: nothing can be position: fixed or borrow the app's layout classes;
// - ids and names are prefixed, so they cannot shadow the app's own.
// The Worker's Content-Security-Policy (img-src 'self' data: blob:) is the second line of defence.

import DOMPurify from "dompurify";
import { dropEventHandlers } from "./eventAttributes";
import { imageSource } from "./imageSource";

/** Controls: dropped with their text. */
const CONTROLS = ["button", "textarea", "select", "option", "optgroup", "datalist", "output", "meter", "progress"];
const FORBID_TAGS = [
  ...CONTROLS, "form", "input", "fieldset", "legend", "label",
  "style", "link", "meta", "base", "iframe", "frame", "frameset", "object", "embed", "portal",
  "audio", "video", "source", "track", "picture", "image", "feimage", "dialog",
];
const FORBID_ATTR = [
  "style", "srcset", "background", "poster", "ping", "action", "formaction",
  "popover", "popovertarget", "popovertargetaction", "command", "commandfor",
];
/** Class names our markdown renderer and highlight.js write; the model's own are dropped. */
const OWN_CLASS = /^(hljs(-[\w-]+)?|language-[\w+#.-]+|code-(block|head|lang))$/;
/** A reference to a resource outside this document: url(x) where x does not start with #. */
const OUTSIDE_URL = /url\(\s*['"]?\s*(?!#)/i;

DOMPurify.addHook("uponSanitizeAttribute", (node, data) => {
  const name = data.attrName.toLowerCase();
  if (name.startsWith("on") || OUTSIDE_URL.test(data.attrValue)) {
    data.keepAttr = false;
  } else if (name === "class") {
    data.attrValue = data.attrValue.split(/\s+/).filter((c) => OWN_CLASS.test(c)).join(" ");
    if (!data.attrValue) data.keepAttr = false;
  } else if ((name === "href" || name === "xlink:href") && node.namespaceURI === "http://www.w3.org/2000/svg") {
    // SVG uses href to pull in other documents (gradients, patterns, text paths); links stay.
    if (node.nodeName.toLowerCase() !== "a" && !data.attrValue.trim().startsWith("#")) data.keepAttr = false;
  }
});

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A" && node.getAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

/**
 * An image that would be fetched from another host becomes a link to it, named by its alt text (or
 * its URL); inside a link already, just that text.
 */
function linkRemoteImages(root: HTMLElement): void {
  for (const img of Array.from(root.querySelectorAll("img"))) {
    const src = img.getAttribute("src")?.trim() ?? "";
    if (!src) {
      img.remove();
      continue;
    }
    if (imageSource(src, location.origin) !== "remote") continue;
    const label = `Image: ${img.getAttribute("alt") || src}`;
    if (img.closest("a")) {
      img.replaceWith(label);
      continue;
    }
    const link = root.ownerDocument.createElement("a");
    link.setAttribute("href", src);
    link.setAttribute("target", "_blank");
    link.setAttribute("rel", "noopener noreferrer");
    link.setAttribute("data-remote-image", "");
    link.textContent = label;
    img.replaceWith(link);
  }
}

/** The copy buttons of code blocks are ours, added after sanitizing (which refuses every button). */
function addCopyButtons(root: HTMLElement): void {
  for (const head of Array.from(root.querySelectorAll(".code-block > .code-head"))) {
    const button = root.ownerDocument.createElement("button");
    button.type = "button";
    button.className = "code-copy";
    button.setAttribute("data-copy", "");
    button.setAttribute("aria-label", "Copy code");
    button.textContent = "Copy";
    head.append(button);
  }
}

/**
 * `html` (from the model, through marked) as HTML that is safe to put in the page. `finish` adds
 * the app's own elements to the sanitized DOM (it is not sanitized again).
 */
export function sanitizeModelHtml(html: string, finish?: (body: HTMLElement) => void): string {
  // The DOM comes back in DOMPurify's own inert document: nothing in it loads while we edit it. The
  // model's event handlers do not even reach its parser (eventAttributes.ts says why).
  const body = DOMPurify.sanitize(dropEventHandlers(html), {
    FORBID_TAGS,
    FORBID_ATTR,
    ADD_FORBID_CONTENTS: CONTROLS,
    ADD_ATTR: ["target"],
    SANITIZE_NAMED_PROPS: true,
    RETURN_DOM: true,
  }) as HTMLElement; // the <body> that holds the result
  linkRemoteImages(body);
  addCopyButtons(body);
  finish?.(body);
  return body.innerHTML;
}
