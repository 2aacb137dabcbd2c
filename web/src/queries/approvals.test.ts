// The open thread's events into its pending approvals in the cache: the thread's own copy (the chat's
// cards) and the list's (the sidebar's badge).
import type { PendingApproval, Thread } from "@protocol";
import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { frame, thread } from "../testing/fixtures";
import { cacheThreadEvent } from "./threadEvents";
import { threadKeys, threadQuery } from "./threads";

const approval = (over: Partial<PendingApproval> = {}): PendingApproval => ({
  runId: "run_1",
  toolUseId: "tu_1",
  toolName: "github__create_issue",
  input: {},
  expiresAt: 600_000,
  ...over,
});

function cached(...threads: Thread[]) {
  const qc = new QueryClient();
  qc.setQueryData(threadKeys.list, { pages: [{ threads }], pageParams: [undefined] });
  qc.setQueryData(threadQuery("thr_1").queryKey, threads.find((t) => t.id === "thr_1"));
  const listed = (id: string) => (qc.getQueryData(threadKeys.list) as { pages: { threads: Thread[] }[] }).pages[0].threads.find((t) => t.id === id);
  const waiting = () => ({
    one: qc.getQueryData(threadQuery("thr_1").queryKey)?.pendingApprovals?.map((a) => a.toolUseId),
    listed: listed("thr_1")?.pendingApprovals?.map((a) => a.toolUseId),
  });
  return { qc, listed, waiting };
}

describe("pending approvals in the cache", () => {
  it("adds tool:approval to the thread and its list entry; thread:updated takes it out", () => {
    const { qc, waiting, listed } = cached(thread(), thread({ id: "thr_2" }));
    cacheThreadEvent(qc, frame("tool:approval", { threadId: "thr_1", ...approval() }, 3));
    expect(waiting()).toEqual({ one: ["tu_1"], listed: ["tu_1"] });
    expect(listed("thr_2")?.pendingApprovals).toBeUndefined();

    cacheThreadEvent(qc, frame("thread:updated", { threadId: "thr_1", thread: thread({ name: "after", pendingApprovals: [] }) }, 4));
    expect(waiting()).toEqual({ one: [], listed: [] });
    expect(listed("thr_1")?.name).toBe("after");
  });

  it("takes a call out when its result streams in", () => {
    const { qc, waiting } = cached(thread({ pendingApprovals: [approval(), approval({ toolUseId: "tu_2" })] }));
    cacheThreadEvent(
      qc,
      frame("pipeline:stream", { threadId: "thr_1", runId: "run_1", type: "tool_result", toolUseId: "tu_2", toolName: "github__x", content: "ok", isError: false }, 5),
    );
    expect(waiting()).toEqual({ one: ["tu_1"], listed: ["tu_1"] });
  });

  it("writes nothing for the events that change no approval", () => {
    const { qc } = cached(thread({ pendingApprovals: [approval()] }));
    const before = qc.getQueryData(threadQuery("thr_1").queryKey);
    const listBefore = qc.getQueryData(threadKeys.list);
    cacheThreadEvent(qc, frame("pipeline:stream", { threadId: "thr_1", runId: "run_1", type: "text", delta: "hi" }, 6));
    cacheThreadEvent(qc, frame("pipeline:complete", { threadId: "thr_1", runId: "run_0", commandsHandled: [], commandsUnhandled: [], durationMs: 1 }, 7));
    expect(qc.getQueryData(threadQuery("thr_1").queryKey)).toBe(before);
    expect(qc.getQueryData(threadKeys.list)).toBe(listBefore);
  });
});
