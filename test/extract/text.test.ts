// HTML, Markdown, CSV, JSON and plain text inside workerd.
import { describe, expect, it } from "vitest";
import { extract, KNOWLEDGE_TYPES, looksLike, UnprocessableError } from "../../worker/lib/extract";
import { layOutJson } from "../../worker/lib/extract/text";

const bytesOf = (s: string) => new TextEncoder().encode(s);

describe("HTML", () => {
  it("drops scripts and styles, splits at headings, decodes entities, keeps tables and lists", async () => {
    const page = `<!doctype html><html><head><title>Field guide</title><style>h1 { color: red }</style>
      <script>if (a < b && c > d) document.write("</div><h1>not a heading</h1>");</script></head>
      <body><nav>Home &middot; About</nav>
      <h1>Birds &amp; their songs</h1><p>The <b>wren</b> sings&nbsp;loudly.<br>Twice a day &#8212; at dawn &#x26; dusk.</p>
      <!-- <h2>commented out</h2> -->
      <ul><li>Wren</li><li>Robin</li></ul>
      <h2 class="x">Where they live</h2>
      <table><tr><th>Bird</th><th>Habitat</th></tr><tr><td>Wren</td><td>Hedges</td></tr></table>
      <noscript>Enable scripts</noscript><template><p>hidden</p></template><svg><text>chart</text></svg>
      <pre>  keep
    this   spacing</pre></body></html>`;
    expect(looksLike("text/html", bytesOf(page))).toBe(true);
    const out = await extract("text/html; charset=utf-8", bytesOf(page));
    expect(out.sections).toEqual([
      { location: { heading: "" }, text: "Field guide\n\nHome · About" },
      { location: { heading: "Birds & their songs" }, text: "# Birds & their songs\n\nThe wren sings loudly.\nTwice a day — at dawn & dusk.\n\n- Wren\n\n- Robin" },
      { location: { heading: "Where they live" }, text: "## Where they live\n\nBird | Habitat\nWren | Hedges\n\n  keep\n    this   spacing" },
    ]);
    expect(JSON.stringify(out)).not.toMatch(/not a heading|commented|hidden|chart|Enable scripts|color/);
  });

  it("is refused at upload when it is not text", () => {
    expect(looksLike("text/html", new Uint8Array([0x3c, 0x70, 0x3e, 0, 1, 2]))).toBe(false);
    expect(looksLike("text/html", bytesOf("no markup at all"))).toBe(false);
  });
});

describe("Markdown, text, JSON", () => {
  it("splits Markdown at its headings, not inside code or front matter", async () => {
    const md = "---\ntitle: Notes\n---\nIntro line.\n\n# Setup\nRun it.\n\n```sh\n# not a heading\n```\n\nUsage\n-----\nCall it.\n\n## Tips ##\nOne tip.\n";
    const out = await extract("text/markdown", bytesOf(md));
    expect(out.sections).toEqual([
      { location: { heading: "" }, text: "---\ntitle: Notes\n---\nIntro line." },
      { location: { heading: "Setup" }, text: "# Setup\nRun it.\n\n```sh\n# not a heading\n```" },
      { location: { heading: "Usage" }, text: "Usage\n-----\nCall it." },
      { location: { heading: "Tips" }, text: "## Tips ##\nOne tip." },
    ]);
  });

  it("gives text and source code as one section, headings or not", async () => {
    const code = "# a comment, not a heading\nimport os\n\nprint(os.getcwd())\n";
    expect(await extract("text/plain", bytesOf(code))).toEqual({ sections: [{ location: { heading: "" }, text: code.trimEnd() }] });
    expect(await extract("text/plain", bytesOf("  \n"))).toEqual({ sections: [] });
  });

  it("lays minified JSON out on lines, keeping its literals", async () => {
    const json = JSON.stringify({ name: "x", big: 0, list: Array.from({ length: 100 }, (_, i) => ({ id: i, tag: `t${i}`, empty: [] })) }).replace('"big":0', '"big":12345678901234567890');
    const out = await extract("application/json", bytesOf(json));
    expect(out.sections).toHaveLength(1);
    const text = out.sections[0].text;
    expect(text.split("\n").length).toBeGreaterThan(300);
    expect(text).toContain('"big": 12345678901234567890');
    expect(text).toContain('"empty": []');
    expect(JSON.parse(text).list[99].tag).toBe("t99");
    expect(layOutJson('{"a":"x,\\"y:{"}')).toBe('{\n  "a": "x,\\"y:{"\n}');
  });

  it("refuses JSON that does not parse", async () => {
    const err = await extract("application/json", bytesOf('{"a": ')).catch((e) => e);
    expect(err).toBeInstanceOf(UnprocessableError);
    expect(err.message).toMatch(/^This JSON could not be read: /);
  });

  it("refuses text past maxChars, and bytes that are not UTF-8 at upload", async () => {
    const err = await extract("text/plain", bytesOf("abc ".repeat(1000)), { maxChars: 100 }).catch((e) => e);
    expect(err).toBeInstanceOf(UnprocessableError);
    expect(err.message).toBe("This text file has more than 100 characters of text, more than a document may have");
    expect(looksLike("text/plain", new Uint8Array([0xff, 0xfe, 0x41, 0]))).toBe(false);
    expect(looksLike("text/plain", bytesOf("héllo"))).toBe(true);
    expect(looksLike("application/json", bytesOf("hello"))).toBe(false);
    expect(looksLike("image/png", bytesOf("x"))).toBe(false);
  });
});

describe("CSV", () => {
  it("gives rows at { sheet: \"\", row } by record, with quoted fields", async () => {
    const csv = 'name,city,note\r\n"Smith, Jo",Oslo,"said ""hi"""\r\nLee,Rome,"two\nlines"\r\n\r\nKim,Kyiv,\r\n';
    const out = await extract("text/csv", bytesOf(csv));
    expect(out.sections).toEqual([{ location: { sheet: "", row: 1 }, text: 'name | city | note\nSmith, Jo | Oslo | said "hi"\nLee | Rome | two lines\nKim | Kyiv' }]);
  });

  it("blocks long files by 20 rows and finds a semicolon delimiter", async () => {
    const csv = Array.from({ length: 50 }, (_, i) => `r${i + 1};${i * 2}`).join("\n");
    const out = await extract("text/csv", bytesOf(csv));
    expect(out.sections.map((s) => s.location)).toEqual([
      { sheet: "", row: 1 },
      { sheet: "", row: 21 },
      { sheet: "", row: 41 },
    ]);
    expect(out.sections[2].text.split("\n")[0]).toBe("r41 | 80");
  });
});

it("handles the media types PROTOCOL.md lists for knowledge, and refuses others", async () => {
  const err = await extract("image/png", bytesOf("x")).catch((e) => e);
  expect(err).toBeInstanceOf(UnprocessableError);
  expect(err.message).toBe("Text is not extracted from files of type image/png");
  expect([...KNOWLEDGE_TYPES].sort()).toEqual(
    [
      "application/json",
      "application/pdf",
      "application/vnd.openxmlformats-officedocument.presentationml.presentation",
      "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      "text/csv",
      "text/html",
      "text/markdown",
      "text/plain",
    ].sort(),
  );
});
