// Numbered references in rendered answers, in Chromium (the DOM pass needs a real DOM): the marks
// citations.ts places become <sup> links after sanitizing, outside links and code, and none is lost.
import { describe, expect, it } from "vitest";
import { chromiumPageForSuite, hasChromium, type ChromiumPage } from "../testing/chromiumPage";
import { numberCitations, type NumberedCitations } from "./citations";
import type { CitationAt } from "./webActivity";

let chromium: ChromiumPage;

interface Rendered {
  html: string;
  text: string;
  refs: { text: string; href: string | null; title: string | null; inside: string | null }[];
}

/** Renders `source` with `citations` into the page, and answers what came of it. */
function render(source: string, citations: CitationAt[]): Promise<Rendered> {
  const numbered: NumberedCitations = numberCitations(citations);
  return chromium.page.evaluate(
    ({ source, numbered }) => {
      type Md = { renderMarkdown(s: string, c: unknown, prefix: string): string };
      const root = document.createElement("div");
      root.innerHTML = (window as unknown as { md: Md }).md.renderMarkdown(source, numbered, "cite-m1");
      document.body.replaceChildren(root);
      return {
        html: root.innerHTML,
        text: root.textContent ?? "",
        refs: [...root.querySelectorAll("sup.cite-ref > a")].map((a) => ({
          text: a.textContent ?? "",
          href: a.getAttribute("href"),
          title: a.getAttribute("title"),
          inside: a.parentElement?.parentElement?.closest("a, code, pre")?.localName ?? null,
        })),
      };
    },
    { source, numbered },
  );
}

const cite = (url: string, at: number, citedText: string, title = `About ${url}`): CitationAt => ({ url, title, citedText, at });

describe.skipIf(!hasChromium)("numbered references (in Chromium)", () => {
  chromium = chromiumPageForSuite("src/lib/markdown.ts", "md");

  it("puts superscript links where the passages end, numbered by source", async () => {
    const text = "London will see **rain** today. Tomorrow is dry.";
    const out = await render(text, [cite("https://a.example/", 31, "Rain expected"), cite("https://b.example/", 48, "Dry tomorrow"), cite("https://a.example/", 48, "x")]);
    expect(out.text.trim()).toBe("London will see rain today.[1] Tomorrow is dry.[2][1]");
    expect(out.refs.map((r) => r.href)).toEqual(["#cite-m1-source-1", "#cite-m1-source-2", "#cite-m1-source-1"]);
    expect(out.refs[0].title).toBe("About https://a.example/: “Rain expected”");
    expect(out.html).toContain("<strong>rain</strong>");
  });

  it("keeps references out of links and code, and keeps markdown working around them", async () => {
    const text = "Use `npm test` to run [the suite](https://docs.example/) now.\n\n- first\n- second";
    const out = await render(text, [cite("https://a.example/", 10, "q"), cite("https://b.example/", 40, "q"), cite("https://c.example/", text.length, "q")]);
    expect(out.refs.map((r) => r.inside)).toEqual([null, null, null]);
    expect(out.html).toContain("<code>npm test</code>");
    expect(out.html).toMatch(/<a href="https:\/\/docs\.example\/"[^>]*>the suite<\/a><sup class="cite-ref">/);
    expect(out.html).toMatch(/<li>second<sup class="cite-ref">/);
  });

  it("loses no reference, and lets the model fake none", async () => {
    const text = "Fake \uE0009\uE001 mark, and a [link](https://x.example/\uE0002\uE001).";
    const out = await render(text, [cite("https://a.example/", 4, "q")]);
    expect(out.refs.map((r) => r.text)).toEqual(["[1]"]);
    expect(out.text).not.toMatch(/\[9\]|\[2\]/);
  });

  it("a reference's title cannot carry markup", async () => {
    const out = await render("Claim.", [cite("https://a.example/", 6, '"><img src=x onerror=alert(1)>', "<b>bold</b>")]);
    expect(out.html).not.toContain("<img");
    expect(out.html).not.toContain("<b>");
    expect(out.refs[0].title).toContain("<b>bold</b>");
  });
});
