// The plan read from the model's answer, and the report held to the pages the tasks fetched.
import { describe, expect, it } from "vitest";
import type { Subquestion } from "../../../protocol";
import { finishReport, numberedSources, parsePlan, titleOf } from "./report";

const sub = (text: string, status: Subquestion["status"], sources: Subquestion["sources"] = []): Subquestion => ({ text, taskId: `task_${text}`, status, sources });

describe("parsePlan", () => {
  it("reads a JSON array, even with words around it, up to the maximum", () => {
    expect(parsePlan('Here is the plan:\n["a", "b", "c"]\nGood luck.', 2)).toEqual(["a", "b"]);
  });
  it("falls back to a list's lines, and drops what is no text", () => {
    expect(parsePlan("1. first\n- second\n\n* third", 8)).toEqual(["first", "second", "third"]);
    expect(parsePlan('["ok", 3, "", null]', 8)).toEqual(["ok"]);
  });
});

describe("the report", () => {
  const subs = [
    sub("one", "completed", [{ url: "https://a.test/", title: "A", fetched: true }, { url: "https://listed.test/", title: "L" }]),
    sub("two", "failed"),
    sub("three", "completed", [{ url: "https://b.test/", title: null, fetched: true }, { url: "https://a.test/", title: "A", fetched: true }]),
  ];
  const sources = numberedSources(subs);

  it("numbers the fetched pages only, each once", () => {
    expect(sources.map((s) => s.url)).toEqual(["https://a.test/", "https://b.test/"]);
  });

  it("links the markers of listed pages, drops the others, unlinks pages no task fetched, names what was not answered", () => {
    const out = finishReport("# Findings\n\nA holds [1]; B [2]; nonsense [7]; see [here](https://listed.test/) or [there](https://a.test/).", "q", subs, sources, null);
    expect(out).toContain("A holds [[1]](https://a.test/); B [[2]](https://b.test/); nonsense ;");
    expect(out).toContain("see here or [there](https://a.test/)");
    expect(out).toContain("## Not answered\n- two (failed)");
    expect(out).toContain("## Sources\n1. [A](https://a.test/)\n2. [https://b.test/](https://b.test/)");
    expect(titleOf(out, "q")).toBe("Findings");
  });

  it("says a partial report is partial, first", () => {
    expect(finishReport("# R\n\ntext", "q", subs, sources, "The time limit (60 s) ran out")).toMatch(/^> \*\*Partial report\.\*\* The time limit \(60 s\) ran out\./);
  });

  it("cites nothing when no task fetched a page", () => {
    const out = finishReport("# R\n\nClaim [1].", "q", [sub("one", "completed", [{ url: "https://listed.test/", title: "L" }])], [], null);
    expect(out).toContain("Claim .");
    expect(out).not.toContain("## Sources");
  });
});
