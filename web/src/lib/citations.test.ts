import { describe, expect, it } from "vitest";
import { markToken, numberCitations, placeCitationMarks } from "./citations";
import type { CitationAt } from "./webActivity";

const cite = (url: string, at: number, citedText = `from ${url}`, title: string | null = `Title of ${url}`): CitationAt => ({ url, title, citedText, at });
const A = "https://a.example/";
const B = "https://b.example/";
const C = "https://c.example/";

describe("numberCitations", () => {
  it("numbers sources by URL in order of first use in the text, whatever order they came in", () => {
    const { sources, marks } = numberCitations([cite(B, 30), cite(A, 10), cite(B, 50), cite(C, 50)]);
    expect(sources.map((s) => [s.n, s.url])).toEqual([
      [1, A],
      [2, B],
      [3, C],
    ]);
    expect(marks).toEqual([
      { at: 10, numbers: [1] },
      { at: 30, numbers: [2] },
      { at: 50, numbers: [2, 3] },
    ]);
  });

  it("gives a source every distinct passage cited from it once, and the first title it has", () => {
    const { sources, marks } = numberCitations([cite(A, 5, "one", null), cite(A, 9, "two", "A title"), cite(A, 9, "one"), cite(A, 12, "  two ")]);
    expect(sources).toEqual([{ n: 1, url: A, title: "A title", quotes: ["one", "two"] }]);
    expect(marks).toEqual([
      { at: 5, numbers: [1] },
      { at: 9, numbers: [1] },
      { at: 12, numbers: [1] },
    ]);
  });

  it("while streaming, leaves out citations whose passage has not arrived", () => {
    const { sources, marks } = numberCitations([cite(A, 10), cite(B, 40)], 20);
    expect(sources.map((s) => s.url)).toEqual([A]);
    expect(marks).toEqual([{ at: 10, numbers: [1] }]);
  });

  it("has nothing to number without citations", () => {
    expect(numberCitations([])).toEqual({ sources: [], marks: [] });
  });
});

const T = markToken;

describe("placeCitationMarks", () => {
  it("puts each mark where its passage ends", () => {
    const text = "The sky is blue. Grass is green.";
    expect(placeCitationMarks(text, [{ at: 16, numbers: [1] }, { at: 32, numbers: [1, 2] }])).toBe(`The sky is blue.${T([1])} Grass is green.${T([1, 2])}`);
  });

  it("keeps a mark on the passage's line, not at the start of the next (where it would undo a list or heading)", () => {
    const text = "Cited line.\n\n- next item\n# heading";
    expect(placeCitationMarks(text, [{ at: 13, numbers: [1] }])).toBe(`Cited line.${T([1])}\n\n- next item\n# heading`);
  });

  it("moves a mark out of a code span, a link and an escape", () => {
    expect(placeCitationMarks("Run `npm test` now", [{ at: 9, numbers: [1] }])).toBe(`Run \`npm test\`${T([1])} now`);
    expect(placeCitationMarks("See [the docs](https://d.example/x) here", [{ at: 30, numbers: [2] }])).toBe(`See [the docs](https://d.example/x)${T([2])} here`);
    expect(placeCitationMarks("a \\* b", [{ at: 3, numbers: [1] }])).toBe(`a \\*${T([1])} b`);
  });

  it("puts a mark that falls in a code block after it, as a paragraph of its own", () => {
    const text = "Before.\n\n```js\nconst a = 1;\n```\n\nAfter.";
    expect(placeCitationMarks(text, [{ at: 20, numbers: [3] }])).toBe(`Before.\n\n\`\`\`js\nconst a = 1;\n\`\`\`\n\n${T([3])}\n\n\n\nAfter.`);
  });

  it("keeps emphasis intact around a mark", () => {
    expect(placeCitationMarks("It is **very blue** indeed", [{ at: 17, numbers: [1] }])).toBe(`It is **very blue${T([1])}** indeed`);
  });

  it("merges marks that land on one place, and clamps offsets beyond the text", () => {
    const text = "Short.";
    expect(placeCitationMarks(text, [{ at: 6, numbers: [1] }, { at: 99, numbers: [1, 2] }])).toBe(`Short.${T([1, 2])}`);
  });

  it("does not let the model's own text fake a mark", () => {
    const text = `Fake ${T([9])} mark.`;
    expect(placeCitationMarks(text, [])).toBe("Fake \uFFFD9\uFFFD mark.");
    expect(placeCitationMarks(text, [{ at: text.length, numbers: [1] }])).toBe(`Fake \uFFFD9\uFFFD mark.${T([1])}`);
  });
});
