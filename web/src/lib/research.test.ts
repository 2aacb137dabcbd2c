import { MAX_SUBQUESTION_CHARS, RESEARCH_MAX_TASKS } from "@protocol";
import { describe, expect, it } from "vitest";
import { research, subquestion } from "../testing/fixtures";
import {
  canAddSubquestion,
  checkPlan,
  formatElapsed,
  laterResearch,
  questionOfMessage,
  researchActive,
  researchElapsedMs,
  researchSourceCount,
  researchStatusText,
  subquestionStatus,
} from "./research";

const source = (n: number, fetched?: boolean) => ({ url: `https://example.com/${n}`, title: `Page ${n}`, ...(fetched ? { fetched } : {}) });

describe("laterResearch (a research:updated frame, or a read, against the copy shown)", () => {
  it("takes the first copy, and a copy of another research", () => {
    const r = research();
    expect(laterResearch(undefined, r)).toBe(r);
    const other = research({ id: "res_2", status: "planning" });
    expect(laterResearch(r, other)).toBe(other);
  });

  it("takes every step forward: status, sub-question status, sources, cost, the end", () => {
    const planning = research({ status: "planning", subquestions: [] });
    const review = research({ status: "review", subquestions: [subquestion({ text: "A" }), subquestion({ text: "B" })] });
    const started = research({ subquestions: [subquestion({ text: "A", taskId: "task_a", status: "running" }), subquestion({ text: "B", taskId: "task_b", status: "running" })] });
    const found = research({ ...started, subquestions: [{ ...started.subquestions[0], sources: [source(1)] }, started.subquestions[1]] });
    const paid = research({ ...found, costUsd: 0.02 });
    const writing = research({ ...paid, status: "writing" });
    const done = research({ ...writing, status: "done", artifactId: "art_1", endedAt: 90_000 });
    let shown: ReturnType<typeof research> | undefined;
    for (const next of [planning, review, started, found, paid, writing, done]) {
      shown = laterResearch(shown, next);
      expect(shown).toBe(next);
    }
  });

  it("keeps a newer copy over a read answered before it (behind in every measure)", () => {
    const newer = research({ costUsd: 0.05, subquestions: [subquestion({ taskId: "t", status: "completed", sources: [source(1), source(2)] })] });
    const staleRead = research({ costUsd: 0.01, subquestions: [subquestion({ taskId: "t", status: "running", sources: [source(1)] })] });
    expect(laterResearch(newer, staleRead)).toBe(newer);
    const ended = research({ ...newer, status: "stopped", endedAt: 50_000, note: "Stopped" });
    expect(laterResearch(ended, newer)).toBe(ended);
  });

  it("takes a copy as far along as the one shown (a sub-question checked again, a plan's text)", () => {
    const evaluating = research({ subquestions: [subquestion({ taskId: "t", status: "evaluating" })] });
    const again = research({ subquestions: [subquestion({ taskId: "t", status: "running" })] });
    expect(laterResearch(evaluating, again)).toBe(again);
  });
});

describe("a sub-question's status (its task's)", () => {
  it("follows the task as its frames keep it, where the research has not caught up", () => {
    expect(subquestionStatus(subquestion({ taskId: "t", status: "pending" }), { status: "running" })).toBe("running");
    expect(subquestionStatus(subquestion({ taskId: "t", status: "running" }), { status: "completed" })).toBe("completed");
  });

  it("keeps the research's when it is further along, or settled, or the task is not known", () => {
    expect(subquestionStatus(subquestion({ taskId: "t", status: "evaluating" }), { status: "running" })).toBe("evaluating");
    expect(subquestionStatus(subquestion({ taskId: "t", status: "cancelled" }), { status: "running" })).toBe("cancelled");
    expect(subquestionStatus(subquestion({ taskId: "t", status: "pending" }), undefined)).toBe("pending");
    expect(subquestionStatus(subquestion({ status: "planned" }), undefined)).toBe("planned");
  });
});

describe("elapsed time", () => {
  it("runs to now while the research goes on, and stops at its end", () => {
    expect(researchElapsedMs({ startedAt: 10_000, endedAt: null }, 52_500)).toBe(42_500);
    expect(researchElapsedMs({ startedAt: 10_000, endedAt: 70_000 }, 999_999)).toBe(60_000);
    // A clock behind the server's never reads negative.
    expect(researchElapsedMs({ startedAt: 10_000, endedAt: null }, 9_000)).toBe(0);
  });

  it("reads as a stopwatch", () => {
    expect(formatElapsed(0)).toBe("0:00");
    expect(formatElapsed(7_900)).toBe("0:07");
    expect(formatElapsed(272_000)).toBe("4:32");
    expect(formatElapsed(3_729_000)).toBe("1:02:09");
  });
});

describe("the status line", () => {
  it("says where the research is, counting the sub-questions done", () => {
    expect(researchStatusText(research({ status: "planning", subquestions: [] }))).toBe("Planning the research…");
    expect(researchStatusText(research({ status: "review", subquestions: [subquestion(), subquestion()] }))).toMatch(/^Review the plan: 2 sub-questions/);
    const running = research({
      subquestions: [subquestion({ status: "completed" }), subquestion({ status: "running" }), subquestion({ status: "failed" })],
    });
    expect(researchStatusText(running)).toBe("Researching: 2 of 3 sub-questions done");
    expect(researchStatusText(research({ status: "writing" }))).toBe("Writing the report…");
    expect(researchStatusText(research({ status: "done" }))).toBe("The report is ready");
  });

  it("is active until done, stopped or failed", () => {
    expect(["planning", "review", "running", "writing"].every((s) => researchActive(s as never))).toBe(true);
    expect(["done", "stopped", "failed"].some((s) => researchActive(s as never))).toBe(false);
  });

  it("counts each source once across sub-questions", () => {
    const r = research({ subquestions: [subquestion({ sources: [source(1), source(2)] }), subquestion({ sources: [source(2, true), source(3)] })] });
    expect(researchSourceCount(r)).toBe(3);
  });

  it("finds the question in the research's message", () => {
    expect(questionOfMessage("Research: Why is the sky blue?")).toBe("Why is the sky blue?");
  });
});

describe("the plan under review (checked before it is sent)", () => {
  it("sends each sub-question trimmed", () => {
    expect(checkPlan(["  A? ", "B?"])).toEqual({ subquestions: ["A?", "B?"], items: [null, null], plan: null, ok: true });
  });

  it("refuses an empty or too long sub-question, saying which", () => {
    const check = checkPlan(["A?", "   ", "x".repeat(MAX_SUBQUESTION_CHARS + 1)]);
    expect(check.ok).toBe(false);
    expect(check.items[0]).toBeNull();
    expect(check.items[1]).toMatch(/Write the sub-question, or remove it/);
    expect(check.items[2]).toMatch(/At most 1,000 characters \(this one has 1,001\)/);
    expect(checkPlan(["x".repeat(MAX_SUBQUESTION_CHARS)]).ok).toBe(true);
  });

  it("takes 1 to 8 sub-questions", () => {
    expect(checkPlan([]).plan).toMatch(/at least 1 sub-question/);
    expect(checkPlan(Array(RESEARCH_MAX_TASKS).fill("Q?")).ok).toBe(true);
    const tooMany = checkPlan(Array(RESEARCH_MAX_TASKS + 2).fill("Q?"));
    expect(tooMany.ok).toBe(false);
    expect(tooMany.plan).toBe("At most 8 sub-questions: remove 2.");
    expect(canAddSubquestion(Array(RESEARCH_MAX_TASKS - 1).fill(""))).toBe(true);
    expect(canAddSubquestion(Array(RESEARCH_MAX_TASKS).fill(""))).toBe(false);
  });
});
