import { describe, expect, it } from "vitest";
import { diffStats, foldUnchanged, lineDiff, splitLines, type DiffLine } from "./lineDiff";

/** A diff in short: " x", "-x", "+x". */
const short = (lines: DiffLine[]) => lines.map((l) => (l.kind === "same" ? " " : l.kind === "del" ? "-" : "+") + l.text);

/** The text each side of a diff holds, rebuilt from it. */
function sides(lines: DiffLine[]): [string[], string[]] {
  return [lines.filter((l) => l.kind !== "add").map((l) => l.text), lines.filter((l) => l.kind !== "del").map((l) => l.text)];
}

describe("splitLines", () => {
  it("splits on newlines, without an empty last line for a final newline", () => {
    expect(splitLines("")).toEqual([]);
    expect(splitLines("a\nb\n")).toEqual(["a", "b"]);
    expect(splitLines("a\r\nb")).toEqual(["a", "b"]);
    expect(splitLines("\n")).toEqual([""]);
  });
});

describe("lineDiff", () => {
  it("finds nothing between equal texts", () => {
    expect(short(lineDiff("a\nb", "a\nb"))).toEqual([" a", " b"]);
    expect(lineDiff("", "")).toEqual([]);
  });

  it("shows a changed line as removed then added, with each side's line numbers", () => {
    const diff = lineDiff("# Title\nold line\nend\n", "# Title\nnew line\nend\n");
    expect(short(diff)).toEqual([" # Title", "-old line", "+new line", " end"]);
    expect(diff[1]).toEqual({ kind: "del", text: "old line", before: 2 });
    expect(diff[2]).toEqual({ kind: "add", text: "new line", after: 2 });
    expect(diff[3]).toEqual({ kind: "same", text: "end", before: 3, after: 3 });
  });

  it("finds the fewest changes: insertions and deletions in the middle keep the lines around them", () => {
    expect(short(lineDiff("a\nb\nc\nd", "a\nc\nd\ne"))).toEqual([" a", "-b", " c", " d", "+e"]);
    expect(short(lineDiff("x\ny", "w\nx\ny"))).toEqual(["+w", " x", " y"]);
    // Myers' own example: ABCABBA to CBABAC takes 5 edits, around 4 lines kept.
    const classic = lineDiff("a\nb\nc\na\nb\nb\na", "c\nb\na\nb\na\nc");
    expect(diffStats(classic)).toEqual({ added: 2, removed: 3 });
    expect(classic.filter((l) => l.kind === "same")).toHaveLength(4);
  });

  it("is from empty and to empty", () => {
    expect(short(lineDiff("", "a\nb"))).toEqual(["+a", "+b"]);
    expect(short(lineDiff("a\nb", ""))).toEqual(["-a", "-b"]);
  });

  it("always rebuilds both texts, and numbers each side's lines in order", () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const text = () => Array.from({ length: Math.floor(rand() * 12) }, () => "abcd"[Math.floor(rand() * 4)]).join("\n");
    for (let n = 0; n < 300; n++) {
      const [a, b] = [text(), text()];
      const diff = lineDiff(a, b);
      expect(sides(diff)).toEqual([splitLines(a), splitLines(b)]);
      const befores = diff.flatMap((l) => (l.kind === "add" ? [] : [l.before]));
      const afters = diff.flatMap((l) => (l.kind === "del" ? [] : [l.after]));
      expect(befores).toEqual(befores.map((_, i) => i + 1));
      expect(afters).toEqual(afters.map((_, i) => i + 1));
    }
  });

  it("past its bound of edits, shows the middle as replaced (and stays correct)", () => {
    const a = Array.from({ length: 50 }, (_, i) => `a${i}`).join("\n");
    const b = Array.from({ length: 50 }, (_, i) => `b${i}`).join("\n");
    const diff = lineDiff(`top\n${a}\nbottom`, `top\n${b}\nbottom`, 10);
    expect(short(diff)[0]).toBe(" top");
    expect(short(diff).at(-1)).toBe(" bottom");
    expect(diffStats(diff)).toEqual({ added: 50, removed: 50 });
    expect(sides(diff)).toEqual([splitLines(`top\n${a}\nbottom`), splitLines(`top\n${b}\nbottom`)]);
  });

  it("is quick on a large artifact with a small change", () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
    const changed = [...lines];
    changed[10_000] = "changed";
    changed.splice(15_000, 0, "inserted");
    const started = performance.now();
    const diff = lineDiff(lines.join("\n"), changed.join("\n"));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(diffStats(diff)).toEqual({ added: 2, removed: 1 });
  });
});

describe("foldUnchanged", () => {
  it("folds long unchanged runs, keeping three lines around each change", () => {
    const before = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join("\n");
    const after = before.replace("l10", "L10");
    const rows = foldUnchanged(lineDiff(before, after));
    expect(rows.map((r) => (r.kind === "skip" ? `…${r.count}` : r.kind === "same" ? r.text : `${r.kind} ${r.text}`))).toEqual([
      "…6", "l7", "l8", "l9", "del l10", "add L10", "l11", "l12", "l13", "…7",
    ]);
  });

  it("keeps only the context before the first change, and leaves a short diff whole", () => {
    const rows = foldUnchanged(lineDiff("a\nb\nc\nd\ne\nf\ng\nx\ny", "a\nb\nc\nd\ne\nf\ng\nx\nz"), 3);
    expect(rows[0]).toEqual({ kind: "skip", count: 5 });
    expect(foldUnchanged(lineDiff("a\nb", "a\nc"))).toHaveLength(3);
  });
});
