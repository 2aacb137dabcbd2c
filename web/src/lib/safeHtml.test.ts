// The sanitizer for model output, in Chromium: DOMPurify needs a real DOM, and what matters is what
// a browser's parser makes of the result. Each case renders markdown (lib/markdown.ts, through
// safeHtml.ts) into the page and inspects what the page then holds.
import { describe, expect, it } from "vitest";
import { chromiumPageForSuite, hasChromium, PAGE_ORIGIN, type ChromiumPage } from "../testing/chromiumPage";

interface Rendered {
  html: string;
  text: string;
  tags: string[];
  attributes: string[];
  links: { href: string | null; text: string; rel: string | null; target: string | null; remoteImage: boolean }[];
  images: string[];
}

let chromium: ChromiumPage;

/** Renders `markdown` into the page, and answers what came of it. */
function render(markdown: string): Promise<Rendered> {
  return chromium.page.evaluate((source) => {
    const root = document.createElement("div");
    root.innerHTML = (window as unknown as { md: { renderMarkdown(s: string): string } }).md.renderMarkdown(source);
    document.body.replaceChildren(root);
    const all = [...root.querySelectorAll("*")];
    return {
      html: root.innerHTML,
      text: root.textContent ?? "",
      tags: [...new Set(all.map((e) => e.localName))],
      attributes: [...new Set(all.flatMap((e) => [...e.attributes].map((a) => a.name)))],
      links: [...root.querySelectorAll("a")].map((a) => ({
        href: a.getAttribute("href"),
        text: a.textContent ?? "",
        rel: a.getAttribute("rel"),
        target: a.getAttribute("target"),
        remoteImage: a.hasAttribute("data-remote-image"),
      })),
      images: [...root.querySelectorAll("img")].map((img) => img.getAttribute("src") ?? ""),
    };
  }, markdown);
}

const PIXEL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGMIczvxHwAEvgJkCH8s1QAAAABJRU5ErkJggg==";

describe.skipIf(!hasChromium)("sanitizeModelHtml (in Chromium)", () => {
  chromium = chromiumPageForSuite("src/lib/markdown.ts", "md");

  it("shows a remote image as a link, named by its alt text or its URL", async () => {
    const out = await render('![a cat](https://images.example/cat.png)\n\n<img src="http://tracker.example/p.gif">');
    expect(out.images).toEqual([]);
    expect(out.links).toEqual([
      { href: "https://images.example/cat.png", text: "Image: a cat", rel: "noopener noreferrer", target: "_blank", remoteImage: true },
      { href: "http://tracker.example/p.gif", text: "Image: http://tracker.example/p.gif", rel: "noopener noreferrer", target: "_blank", remoteImage: true },
    ]);
  });

  it("keeps data: and same-origin images, and nothing else loads", async () => {
    // A blob: URL is made by the page, so the model cannot name one: DOMPurify drops it.
    const out = await render(`![pixel](${PIXEL}) <img src="blob:${PAGE_ORIGIN}/abc"> <img src="/api/threads/t/attachments/a" alt="file">`);
    expect(out.images).toEqual([PIXEL, "/api/threads/t/attachments/a"]);
    const out2 = await render('<img src="//cdn.example/a.png"> <img src="/\\cdn.example/b.png"> <img src="/cdn-cgi/access/logout">');
    expect(out2.images).toEqual([]);
    expect(out2.links.map((l) => l.href)).toEqual(["//cdn.example/a.png", "/\\cdn.example/b.png", "/cdn-cgi/access/logout"]);
    expect(chromium.requests.filter((url) => !url.startsWith(PAGE_ORIGIN))).toEqual([]);
  });

  it("does not nest a link in a link: a remote image inside one becomes its text", async () => {
    const out = await render('<a href="https://site.example/">see <img src="https://site.example/i.png" alt="the chart"></a>');
    expect(out.links).toEqual([{ href: "https://site.example/", text: "see Image: the chart", rel: "noopener noreferrer", target: "_blank", remoteImage: false }]);
  });

  it("drops forms and controls, with the controls' text", async () => {
    const out = await render(
      '<form action="https://phish.example/"><label>Password <input name="p"></label><textarea>secret</textarea>' +
        '<select><option>opt</option></select><button type="submit">Log in</button><fieldset><legend>L</legend></fieldset></form>',
    );
    for (const tag of ["form", "input", "textarea", "select", "option", "button", "label", "fieldset", "legend"]) expect(out.tags).not.toContain(tag);
    expect(out.text).not.toMatch(/secret|opt|Log in/);
    expect(out.text).toContain("Password");
  });

  it("drops styles, links, meta, base, frames, objects and media", async () => {
    const out = await render(
      "<style>body{display:none}</style><link rel=stylesheet href=https://x.example/a.css><meta http-equiv=refresh content=0;url=https://x.example>" +
        "<base href=https://x.example/><iframe src=https://x.example></iframe><object data=https://x.example/o></object>" +
        "<embed src=https://x.example/e><video src=https://x.example/v poster=https://x.example/p></video><audio src=https://x.example/a></audio>" +
        "<picture><source srcset=https://x.example/s.png><img src=https://x.example/i.png></picture><dialog open>d</dialog>text",
    );
    for (const tag of ["style", "link", "meta", "base", "iframe", "object", "embed", "video", "audio", "picture", "source", "dialog"]) {
      expect(out.tags).not.toContain(tag);
    }
    expect(out.text).not.toContain("display:none");
  });

  it("drops style and event attributes, and what points at outside resources", async () => {
    const out = await render(
      '<div style="position:fixed;inset:0;z-index:9999" onclick="alert(1)" ONMOUSEOVER="alert(2)">overlay</div>' +
        '<img src="x" onerror="window.__pwned=1"><table background="https://x.example/t.png"><tr><td>c</td></tr></table>' +
        '<a href="https://x.example/" ping="https://x.example/ping">l</a>' +
        '<svg onload="window.__pwned=2"><use href="https://x.example/s.svg#a"/><rect fill="url(https://x.example/p.svg#p)"/><a href="#local">s</a></svg>',
    );
    for (const name of ["style", "onclick", "onmouseover", "onerror", "onload", "background", "ping", "fill"]) expect(out.attributes).not.toContain(name);
    expect(out.html).not.toContain("x.example/s.svg");
    expect(await chromium.page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
  });

  it("keeps no script link", async () => {
    const out = await render('<a href="javascript:alert(1)">a</a> [b](javascript:alert(2)) <a href="data:text/html,<script>1</script>">c</a>');
    expect(out.links.map((l) => l.href).filter(Boolean)).toEqual([]);
  });

  it("keeps only our own class names, and prefixes ids so that they cannot shadow the app's", async () => {
    const out = await render('<div class="sidebar drawer-scrim hljs" id="root" name="main">x</div>\n\n```js\nconst a = 1;\n```');
    expect(out.html).toMatch(/<div class="hljs"[^>]* id="user-content-root"/);
    expect(out.html).toContain('name="user-content-main"');
    expect(out.html).toContain('class="code-block"');
    expect(out.html).not.toMatch(/sidebar|drawer-scrim/);
  });

  it("gives links a new tab without the page's reference, and code blocks our copy button", async () => {
    const out = await render("[docs](https://docs.example/)\n\n```\nplain\n```");
    expect(out.links).toEqual([{ href: "https://docs.example/", text: "docs", rel: "noopener noreferrer", target: "_blank", remoteImage: false }]);
    expect(out.html).toContain('<button type="button" class="code-copy" data-copy="" aria-label="Copy code">Copy</button>');
  });
});
