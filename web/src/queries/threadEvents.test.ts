import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { frame, task } from "../testing/fixtures";
import { cacheThreadEvent } from "./threadEvents";

const verdicts = (qc: QueryClient) => qc.getQueryData<Record<string, unknown>>(["taskVerdicts"]);

describe("task verdicts from task:evaluated", () => {
  it("keeps the latest verdict of each task, with who judged and why", () => {
    const qc = new QueryClient();
    const evaluated = (iteration: number, accepted: boolean, at: number, feedback?: string) =>
      frame("task:evaluated", { threadId: "thr_1", task: task({ currentIteration: iteration }), accepted, by: "validator (claude-haiku-4-5)", feedback }, 1, at);
    cacheThreadEvent(qc, evaluated(1, false, 1_000, "Give sources."));
    expect(verdicts(qc)).toEqual({
      task_1: { accepted: false, by: "validator (claude-haiku-4-5)", feedback: "Give sources.", iteration: 1, at: 1_000 },
    });
    cacheThreadEvent(qc, evaluated(2, true, 3_000));
    expect(verdicts(qc)?.task_1).toMatchObject({ accepted: true, iteration: 2 });
    // A late copy of an older verdict (the other thread's socket) does not undo the newer one.
    cacheThreadEvent(qc, evaluated(1, false, 2_000, "Give sources."));
    expect(verdicts(qc)?.task_1).toMatchObject({ accepted: true, iteration: 2 });
  });
});

describe("context:changed", () => {
  it("reloads the context files and every file shown", async () => {
    const qc = new QueryClient();
    qc.setQueryData(["context", "list"], { files: [] });
    qc.setQueryData(["context", "file", "memories/a.md"], { path: "memories/a.md" });
    cacheThreadEvent(qc, frame("context:changed", { threadId: "thr_1", paths: ["memories/a.md"] }));
    expect(qc.getQueryState(["context", "list"])?.isInvalidated).toBe(true);
    expect(qc.getQueryState(["context", "file", "memories/a.md"])?.isInvalidated).toBe(true);
  });
});
