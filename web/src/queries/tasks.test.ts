import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { task } from "../testing/fixtures";
import { putTask, tasksQuery, withTask } from "./tasks";

describe("withTask", () => {
  it("adds a task the list's filter takes, newest first", () => {
    const old = task({ id: "task_old" });
    expect(withTask([old], task({ id: "task_new" }), {}).map((t) => t.id)).toEqual(["task_new", "task_old"]);
  });

  it("never lets an older copy undo a newer state (task:stream carries the task as its run began)", () => {
    const done = task({ status: "completed", updatedAt: 5_000 });
    const list = [done];
    expect(withTask(list, task({ status: "running", updatedAt: 4_000 }), {})).toBe(list);
    expect(withTask(list, task({ status: "cancelled", updatedAt: 6_000 }), {})).toEqual([task({ status: "cancelled", updatedAt: 6_000 })]);
  });

  it("takes a task out of a list whose filter it no longer matches", () => {
    const running = task({ status: "running" });
    expect(withTask([running], task({ status: "completed", updatedAt: 2_000 }), { status: "running" })).toEqual([]);
  });

  it("matches a thread's list by the task's own thread or its parent", () => {
    expect(withTask([], task({ threadId: "thr_c", parentThreadId: "thr_p" }), { threadId: "thr_p" })).toHaveLength(1);
    expect(withTask([], task({ threadId: "thr_c", parentThreadId: "thr_p" }), { threadId: "thr_c" })).toHaveLength(1);
    expect(withTask([], task({ threadId: "thr_c", parentThreadId: "thr_p" }), { threadId: "thr_x" })).toHaveLength(0);
  });
});

describe("putTask", () => {
  it("writes into every cached list the task belongs to, and no other", () => {
    const qc = new QueryClient();
    const running = tasksQuery({ status: "running" }).queryKey;
    const ofParent = tasksQuery({ threadId: "thr_1" }).queryKey;
    const ofOther = tasksQuery({ threadId: "thr_9" }).queryKey;
    qc.setQueryData(running, []);
    qc.setQueryData(ofParent, [task({ status: "pending", updatedAt: 1 })]);
    qc.setQueryData(ofOther, []);

    putTask(qc, task({ status: "running", updatedAt: 2 }));
    expect(qc.getQueryData(running)).toHaveLength(1);
    expect(qc.getQueryData(ofParent)).toMatchObject([{ status: "running" }]);
    expect(qc.getQueryData(ofOther)).toEqual([]);
  });
});
