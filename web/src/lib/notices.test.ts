import type { Schedule, Thread } from "@protocol";
import { describe, expect, it } from "vitest";
import { frame, message, task } from "../testing/fixtures";
import { listNotice, RunNotices } from "./notices";

const run = { threadId: "thr_1", runId: "run_1" };
const scheduled = message({ id: "msg_s", source: "schedule", metadata: { scheduleId: "sch_1", scheduleName: "Standup" } });

describe("notices from the open thread's socket", () => {
  it("tells of a scheduled message's run ending, once", () => {
    const notices = new RunNotices(() => "Morning");
    expect(notices.onFrame(frame("schedule:fired", { threadId: "thr_1", scheduleId: "sch_1", messageId: "msg_s" }))).toBeNull();
    expect(notices.onFrame(frame("chat:message", { threadId: "thr_1", message: scheduled }))).toBeNull();
    expect(notices.onFrame(frame("pipeline:start", { ...run, messageId: "msg_s" }))).toBeNull();
    const done = frame("pipeline:complete", { ...run, commandsHandled: [], commandsUnhandled: [], durationMs: 10 });
    expect(notices.onFrame(done)).toEqual({ title: "Scheduled run finished: Standup", body: "Morning", tag: "run:run_1", threadId: "thr_1" });
    expect(notices.onFrame(done)).toBeNull();
  });

  it("says a scheduled run failed, and nothing of the user's own runs", () => {
    const notices = new RunNotices(() => "Morning");
    notices.onFrame(frame("chat:message", { threadId: "thr_1", message: scheduled }));
    notices.onFrame(frame("pipeline:start", { ...run, messageId: "msg_s" }));
    const failed = notices.onFrame(frame("pipeline:error", { ...run, code: "rate_limited", message: "Daily cap reached", retryable: false }));
    expect(failed?.title).toBe("Scheduled run failed: Standup");
    expect(failed?.body).toBe("Morning: Daily cap reached");

    notices.onFrame(frame("chat:message", { threadId: "thr_1", message: message({ id: "msg_u" }) }));
    notices.onFrame(frame("pipeline:start", { threadId: "thr_1", runId: "run_2", messageId: "msg_u" }));
    expect(notices.onFrame(frame("pipeline:complete", { threadId: "thr_1", runId: "run_2", commandsHandled: [], commandsUnhandled: [], durationMs: 1 }))).toBeNull();
  });

  it("tells of a delegated task ending on its parent's socket, not on its own", () => {
    const notices = new RunNotices(() => "Parent");
    const done = task({ threadId: "thr_child", parentThreadId: "thr_1", status: "completed", prompt: "Summarise the notes" });
    expect(notices.onFrame(frame("task:validated", { threadId: "thr_1", task: done }))).toEqual({
      title: "A delegated task finished",
      body: "Summarise the notes",
      tag: "thread:thr_child",
      threadId: "thr_child",
    });
    expect(notices.onFrame(frame("task:failed", { threadId: "thr_1", task: { ...done, status: "failed" } }))?.title).toBe("A delegated task failed");
    expect(notices.onFrame(frame("task:validated", { threadId: "thr_child", task: done }))).toBeNull();
  });

  it("tells of a tool call that waits for the user's approval", () => {
    const notices = new RunNotices(() => "Cleanup");
    const asked = frame("tool:approval", { threadId: "thr_1", runId: "run_1", toolUseId: "toolu_1", toolName: "ops__delete_item", input: { id: "a" }, expiresAt: 1 });
    expect(notices.onFrame(asked)).toEqual({ title: "A tool call waits for your approval", body: "ops__delete_item in Cleanup", tag: "approval:toolu_1", threadId: "thr_1" });
  });
});

describe("notices from the thread list", () => {
  const t = (over: Partial<Thread>): Thread => ({
    id: "thr_b",
    name: "Digest",
    kind: "general",
    status: "active",
    model: "m",
    sessionId: null,
    parentThreadId: null,
    instructions: "",
    headId: null,
    lastActivity: 9_000,
    createdAt: 1_000,
    ...over,
  });
  const was = { lastActivity: 5_000, status: "active" as const, waiting: 0 };
  const fired = { id: "sch_1", threadId: "thr_b", name: "Digest daily", lastRunAt: 8_000 } as Schedule;

  it("tells of a task thread that ended, once its status says so", () => {
    expect(listNotice(t({ kind: "task", status: "completed" }), was, undefined)?.title).toBe("A delegated task finished");
    expect(listNotice(t({ kind: "task", status: "active" }), was, undefined)).toBeNull();
    expect(listNotice(t({ kind: "task", status: "failed" }), { ...was, status: "failed" }, undefined)).toBeNull();
  });

  it("tells of a thread one of whose schedules fired since, or a scheduled thread", () => {
    expect(listNotice(t({}), was, [fired])?.title).toBe("Scheduled run: Digest daily");
    expect(listNotice(t({}), was, [{ ...fired, lastRunAt: 4_000 }])).toBeNull();
    expect(listNotice(t({}), was, undefined)).toBeNull();
    expect(listNotice(t({ kind: "cron" }), was, [])?.title).toBe("Scheduled thread");
    // A status change alone is no news of a scheduled run.
    expect(listNotice(t({ kind: "cron", lastActivity: 5_000 }), was, [])).toBeNull();
  });

  it("tells of another thread's tool call that now waits for approval, and not again for the same one", () => {
    const pending = [{ runId: "run_1", toolUseId: "toolu_9", toolName: "ops__delete_item", input: {}, expiresAt: 1 }];
    expect(listNotice(t({ pendingApprovals: pending, lastActivity: 5_000 }), was, undefined)).toEqual({
      title: "A tool call waits for your approval",
      body: "ops__delete_item in Digest",
      tag: "approval:toolu_9",
      threadId: "thr_b",
    });
    expect(listNotice(t({ pendingApprovals: pending, lastActivity: 5_000 }), { ...was, waiting: 1 }, undefined)).toBeNull();
  });
});
