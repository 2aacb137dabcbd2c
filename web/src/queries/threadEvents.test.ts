import type { Task } from "@protocol";
import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { frame, task } from "../testing/fixtures";
import { cacheThreadEvent } from "./threadEvents";

describe("task:evaluated", () => {
  it("puts the task with its verdict into the lists that show it, and an older copy never undoes it", () => {
    const qc = new QueryClient();
    const key = ["tasks", { threadId: "thr_1" }];
    qc.setQueryData(key, [task()]);
    const verdict = (iteration: number, accepted: boolean, feedback?: string) => ({ accepted, by: "validator (claude-haiku-4-5)", feedback, iteration, at: iteration });
    const evaluated = (iteration: number, accepted: boolean, updatedAt: number, feedback?: string) =>
      frame("task:evaluated", { threadId: "thr_1", task: task({ currentIteration: iteration, updatedAt, verdict: verdict(iteration, accepted, feedback) }), accepted, feedback });
    const shown = () => qc.getQueryData<Task[]>(key)?.[0]?.verdict;
    cacheThreadEvent(qc, evaluated(1, false, 2_000, "Give sources."));
    expect(shown()).toEqual(verdict(1, false, "Give sources."));
    cacheThreadEvent(qc, evaluated(2, true, 4_000));
    expect(shown()).toMatchObject({ accepted: true, iteration: 2 });
    // A late copy of the older verdict (the other thread's socket) does not undo the newer one.
    cacheThreadEvent(qc, evaluated(1, false, 2_000, "Give sources."));
    expect(shown()).toMatchObject({ accepted: true, iteration: 2 });
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

describe("schedule:fired", () => {
  it("reloads the thread's schedules and the user's (a fire moves the next time)", () => {
    const qc = new QueryClient();
    qc.setQueryData(["schedules", "thread", "thr_1"], []);
    qc.setQueryData(["schedules", "mine"], []);
    cacheThreadEvent(qc, frame("schedule:fired", { threadId: "thr_1", scheduleId: "sch_1", messageId: "msg_1" }));
    expect(qc.getQueryState(["schedules", "thread", "thr_1"])?.isInvalidated).toBe(true);
    expect(qc.getQueryState(["schedules", "mine"])?.isInvalidated).toBe(true);
  });
});
