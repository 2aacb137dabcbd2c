import { describe, expect, it } from "vitest";
import { FRAME_GUARD_SCRIPT } from "./frameGuard";
import { FRAME_CSP, FRAME_MESSAGE, FRAME_PATH, frameSays, htmlFrame, mermaidFrame, renderMessage, svgFrame, tabPage, TAB_SCRIPT_PATH } from "./artifactFrame";

const META = `<meta http-equiv="Content-Security-Policy" content="${FRAME_CSP}"><script>${FRAME_GUARD_SCRIPT}</script>`;

describe("FRAME_CSP", () => {
  it("lets inline script and style run, and nothing load or connect anywhere", () => {
    const directives = Object.fromEntries(FRAME_CSP.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...v]) => [name, v]));
    expect(directives["default-src"]).toEqual(["'none'"]);
    expect(directives["script-src"]).toEqual(["'unsafe-inline'"]);
    expect(directives["style-src"]).toEqual(["'unsafe-inline'"]);
    expect(directives["img-src"]).toEqual(["data:", "blob:"]);
    // connect-src, frame-src, form-action… fall back to default-src 'none'; nothing names a host or 'self'.
    expect(directives["connect-src"]).toBeUndefined();
    expect(FRAME_CSP).not.toMatch(/'self'|https?:|\*|unsafe-eval/);
  });
});

describe("htmlFrame", () => {
  it("puts the policy first, in the head, then the page as written", () => {
    const page = "<!doctype html><html><head><title>T</title></head><body><script>document.body.append('hi')</script></body></html>";
    const doc = htmlFrame(page);
    expect(doc.html.startsWith(`<!doctype html><meta charset="utf-8">${META}`)).toBe(true);
    expect(doc.html.endsWith(page)).toBe(true);
    expect(doc.scripts).toEqual([]);
  });

  it("does the same for a fragment", () => {
    expect(htmlFrame("<p>hi</p>").html).toBe(`<!doctype html><meta charset="utf-8">${META}<p>hi</p>`);
  });

  it("gives the page no frame: its frame tags are renamed before it is parsed", () => {
    const page = '<p>a</p><IFRAME srcdoc="x"></iframe><object data="d"></object><embed src="e"><frame/><iframes>';
    expect(htmlFrame(page).html).toBe(
      `<!doctype html><meta charset="utf-8">${META}<p>a</p><x-blocked-IFRAME srcdoc="x"></x-blocked-iframe><x-blocked-object data="d"></x-blocked-object><x-blocked-embed src="e"><x-blocked-frame/><iframes>`,
    );
  });
});

describe("svgFrame", () => {
  it("shows the SVG in the body of a page under the policy", () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><circle r="5"/></svg>';
    const { html } = svgFrame(svg);
    expect(html.indexOf(META)).toBeGreaterThan(0);
    expect(html.indexOf(META)).toBeLessThan(html.indexOf("<body>"));
    expect(html).toContain(`<body>${svg}</body>`);
  });
});

describe("mermaidFrame", () => {
  it("runs the library, then draws the source, which goes in as a JSON string and never into the HTML", () => {
    const source = 'graph TD\n  A["</script><script>alert(1)</script>"] --> B';
    const doc = mermaidFrame(source, "/* the library */");
    expect(doc.html).not.toContain("alert");
    expect(doc.html).toContain('<div id="diagram">');
    expect(doc.scripts[0]).toBe("/* the library */");
    expect(doc.scripts[1]).toContain(JSON.stringify(source));
    expect(doc.scripts[1]).toContain(`securityLevel: "strict"`);
    expect(doc.scripts[1]).toContain(FRAME_MESSAGE.error);
    // It is a script: the call parses.
    expect(() => new Function(doc.scripts[1])).not.toThrow();
  });
});

describe("renderMessage and frameSays", () => {
  it("hands the document over", () => {
    expect(renderMessage({ html: "<p>x</p>", scripts: ["1"] })).toEqual({ type: FRAME_MESSAGE.render, html: "<p>x</p>", scripts: ["1"] });
  });

  it("reads only our messages, whatever the artifact posts", () => {
    expect(frameSays({ type: FRAME_MESSAGE.ready })).toEqual({ type: "ready" });
    expect(frameSays({ type: FRAME_MESSAGE.error, message: "Parse error on line 2" })).toEqual({ type: "error", message: "Parse error on line 2" });
    expect(frameSays({ type: FRAME_MESSAGE.error, message: { toString: 1 } })).toEqual({ type: "error", message: "Unknown error" });
    expect(frameSays({ type: FRAME_MESSAGE.error, message: "x".repeat(10_000) })).toMatchObject({ message: "x".repeat(2_000) });
    expect(frameSays("ready")).toBeNull();
    expect(frameSays(null)).toBeNull();
    expect(frameSays({ type: "something else" })).toBeNull();
  });
});

describe("tabPage", () => {
  const origin = "https://chat.example";

  it("frames the app's frame page, sandboxed, with the app's script to hand it the document", () => {
    const page = tabPage(htmlFrame("<p>hi</p>"), "My page", origin);
    expect(page).toContain(`<iframe sandbox="allow-scripts" src="${origin}${FRAME_PATH}" title="My page"></iframe>`);
    expect(page).toContain(`<script src="${origin}${TAB_SCRIPT_PATH}"></script>`);
    expect(page).not.toContain("allow-same-origin");
  });

  it("keeps the artifact inert data: nothing in it can end the data element or run in the page", () => {
    const evil = '</script><script>alert(document.cookie)</script><!--';
    const page = tabPage(htmlFrame(evil), '</title><script>alert(1)</script>', origin);
    const scripts = page.match(/<script\b[^>]*>/g);
    expect(scripts).toEqual(['<script type="application/json" id="artifact">', `<script src="${origin}${TAB_SCRIPT_PATH}">`]);
    expect(page).toContain("<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>");
    const data = page.slice(page.indexOf('id="artifact">') + 'id="artifact">'.length, page.indexOf("</script>"));
    expect(JSON.parse(data)).toEqual(htmlFrame(evil));
  });
});
