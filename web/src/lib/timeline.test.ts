import type { Message } from "@protocol";
import { describe, expect, it } from "vitest";
import { message } from "../testing/fixtures";
import type { LiveRun } from "./liveRun";
import type { OutboxItem } from "./outbox";
import { buildTimeline, summarizeLive, type TimelineItem } from "./timeline";
import { NO_WEB } from "./webActivity";

let nextId = 0;
const at = (createdAt: number, over: Partial<Message>) => message({ id: `msg_${++nextId}`, createdAt, ...over });
const userSays = (content: string, createdAt: number) => at(createdAt, { content });
const step = (runId: string, name: string, createdAt: number, detail?: string) =>
  at(createdAt, { role: "system", kind: "pipeline_step", content: name, metadata: { runId, step: name, detail } });
const status = (runId: string, content: string, createdAt: number, metadata = {}) =>
  at(createdAt, { role: "system", kind: "status", content, metadata: { runId, ...metadata } });
const answer = (runId: string, content: string, createdAt: number) => at(createdAt, { role: "assistant", content, metadata: { runId } });

function liveRun(over: Partial<LiveRun>): LiveRun {
  return { runId: "run_live", messageId: null, status: "running", steps: [], blocks: [], text: "", web: NO_WEB, documents: [], code: [], inputs: [], wrote: {}, startedAt: 0, ...over };
}

function pending(over: Partial<OutboxItem>): OutboxItem {
  return { clientMessageId: "c1", threadId: "thr_1", content: "queued", createdAt: 0, state: "sending", attempts: 1, ...over };
}

/** The timeline in short: each item's type and what it is about. */
function outline(items: TimelineItem[]): string[] {
  return items.map((i) => {
    switch (i.type) {
      case "message":
        return `${i.message.role}: ${i.message.content}`;
      case "activity":
        return `activity ${i.activity.runId} ${i.activity.status}`;
      case "error":
        return `error ${i.code}`;
      case "run":
        return `run ${i.run.runId}${i.final ? `: ${i.final.content}` : ""}`;
      case "pending":
        return `pending: ${i.item.content}`;
      case "artifacts":
        return `artifacts: ${i.artifacts.map((a) => a.id).join(", ")}`;
    }
  });
}

describe("timeline of stored messages", () => {
  it("folds a run's steps and statuses into one activity line before its reply", () => {
    const q = userSays("question", 1);
    const messages = [
      q,
      status("run_a", "pipeline_start", 2),
      step("run_a", "onMessage", 3),
      step("run_a", "invoking", 4, "claude-sonnet-4-6"),
      at(5, { role: "assistant", kind: "tool_call", content: "{}", metadata: { runId: "run_a", toolName: "time__now" } }),
      answer("run_a", "the answer", 6),
      status("run_a", "pipeline_complete", 7, { durationMs: 1200, usage: { inputTokens: 5, outputTokens: 7 } }),
    ];
    const items = buildTimeline(messages, {}, [], []);
    expect(outline(items)).toEqual(["user: question", "activity run_a complete", "assistant: {}", "assistant: the answer"]);
    const activity = items[1].type === "activity" ? items[1].activity : null;
    expect(activity).toMatchObject({ model: "claude-sonnet-4-6", durationMs: 1200, toolCount: 1, usage: { inputTokens: 5 } });
    expect(activity?.steps.map((s) => s.step)).toEqual(["onMessage", "invoking"]);
  });

  it("shows a stored failure, with the last question to retry", () => {
    const messages = [userSays("try this", 1), status("run_f", "pipeline_error", 2, { code: "timeout" })];
    const items = buildTimeline(messages, {}, [], []);
    expect(outline(items)).toEqual(["user: try this", "activity run_f error", "error timeout"]);
    expect(items[2]).toMatchObject({ runId: "run_f", retryContent: "try this" });
  });

  it("keeps an interruption's message and whether a retry may help, and counts the run's web searches", () => {
    const why = "The thread restarted during this run, after a tool had run; it was not repeated.";
    const usage = { inputTokens: 5, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0, serverToolUses: { web_search: 2, web_fetch: 1 } };
    const messages = [userSays("look it up", 1), status("run_i", "pipeline_error", 2, { code: "interrupted", message: why, retryable: true, usage })];
    const items = buildTimeline(messages, {}, [], []);
    expect(items[2]).toMatchObject({ type: "error", code: "interrupted", message: why, retryable: true, retryContent: "look it up" });
    expect(items[1]).toMatchObject({ activity: { searches: 2, fetches: 1 } });
  });

  it("keeps a reply with its own run when a later question was stored before it", () => {
    const messages = [
      userSays("one", 1),
      step("run_1", "onMessage", 2),
      userSays("two", 3),
      answer("run_1", "answer one", 4),
      step("run_2", "onMessage", 5),
      answer("run_2", "answer two", 6),
    ];
    expect(outline(buildTimeline(messages, {}, [], []))).toEqual([
      "user: one",
      "activity run_1 running",
      "assistant: answer one",
      "user: two",
      "activity run_2 running",
      "assistant: answer two",
    ]);
  });
});

describe("timeline with live runs", () => {
  it("puts a live run right after the message it answers, with its stored reply, shown once", () => {
    const one = userSays("one", 1);
    const two = userSays("two", 5);
    const messages = [one, step("run_live", "onMessage", 2), two, answer("run_live", "streamed and stored", 6)];
    const live = liveRun({ messageId: one.id, status: "complete", text: "streamed and stored" });
    const items = buildTimeline(messages, { run_live: live }, ["run_live"], []);
    expect(outline(items)).toEqual(["user: one", "run run_live: streamed and stored", "user: two"]);
    expect(items[1]).toMatchObject({ retryContent: "one" });
  });

  it("puts a run joined mid-way (its question unknown) after everything stored", () => {
    const messages = [userSays("earlier", 1)];
    const items = buildTimeline(messages, { run_live: liveRun({}) }, ["run_live"], []);
    expect(outline(items)).toEqual(["user: earlier", "run run_live"]);
    expect(items[1]).toMatchObject({ retryContent: "earlier" });
  });

  it("summarizes a live run for its activity line", () => {
    const summary = summarizeLive(
      liveRun({
        steps: [{ step: "invoking", detail: "m", at: 1 }],
        blocks: [
          { kind: "tool_call", key: "k1", toolUseId: "t", toolName: "x", input: {} },
          { kind: "tool_result", key: "k2", toolUseId: "t", content: "r", isError: false },
        ],
        text: "12345",
        error: { code: "aborted", message: "stopped", retryable: true },
      }),
    );
    expect(summary).toMatchObject({ status: "running", toolCount: 1, streamed: 5, errorCode: "aborted", steps: [{ step: "invoking", detail: "m" }] });
  });

  it("counts a live run's searches as they run, then as billed", () => {
    const call = (toolUseId: string, toolName: string) => ({ toolUseId, toolName, input: {}, sources: [], done: true });
    const web = { calls: [call("s1", "web_search"), call("s2", "web_search"), call("f1", "web_fetch")], citations: [] };
    expect(summarizeLive(liveRun({ web }))).toMatchObject({ searches: 2, fetches: 1 });
    const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, serverToolUses: { web_search: 3 } };
    expect(summarizeLive(liveRun({ web, usage }))).toMatchObject({ searches: 3, fetches: 0 });
  });
});

describe("timeline with pending sends", () => {
  it("shows unacknowledged sends last, and hides one whose stored copy is on screen", () => {
    const stored = userSays("echoed", 1);
    const items = buildTimeline(
      [stored],
      {},
      [],
      [pending({ clientMessageId: "c1", content: "echoed", echoedMessageId: stored.id }), pending({ clientMessageId: "c2", content: "still out" })],
    );
    expect(outline(items)).toEqual(["user: echoed", "pending: still out"]);
    expect(items[1].key).toBe("pending:c2");
  });

  it("keeps showing an echoed send when its stored copy is not loaded", () => {
    const items = buildTimeline([], {}, [], [pending({ echoedMessageId: "msg_elsewhere" })]);
    expect(outline(items)).toEqual(["pending: queued"]);
  });

  it("tells a run started again after a restart from one that failed", () => {
    const restarted = { code: "interrupted" as const, message: "answering again", retryable: false };
    expect(summarizeLive(liveRun({ status: "error", error: restarted }))).toMatchObject({ restarted: true });
    const failed = { ...restarted, retryable: true };
    expect(summarizeLive(liveRun({ status: "error", error: failed }))).toMatchObject({ restarted: false, errorCode: "interrupted" });
  });
});
