import type { PendingApproval } from "@protocol";
import { describe, expect, it } from "vitest";
import { ApiError } from "../api";
import { frame, message, thread } from "../testing/fixtures";
import { approvalPhase, describeExpiry, foldApprovals, looseApprovals, touchesApprovals, unplacedApprovals } from "./approvals";
import { chatReducer, initialChatState } from "./chatState";
import type { LiveRun } from "./liveRun";
import type { TimelineItem } from "./timeline";

const approval = (over: Partial<PendingApproval> = {}): PendingApproval => ({
  runId: "run_1",
  toolUseId: "tu_1",
  toolName: "github__create_issue",
  input: { title: "Crash" },
  expiresAt: 600_000,
  ...over,
});
const asked = (a: PendingApproval, seq = 1) => frame("tool:approval", { threadId: "thr_1", ...a }, seq);
const result = (toolUseId: string) =>
  frame("pipeline:stream", { threadId: "thr_1", runId: "run_1", type: "tool_result", toolUseId, toolName: "github__create_issue", content: "done", isError: false });

describe("pending approvals, folded from the thread's events", () => {
  it("adds a call that asks, without its threadId, and replaces a repeated one", () => {
    const one = foldApprovals(undefined, asked(approval()));
    expect(one).toEqual([approval()]);
    const two = foldApprovals(one, asked(approval({ toolUseId: "tu_2" })));
    expect(two?.map((a) => a.toolUseId)).toEqual(["tu_1", "tu_2"]);
    const again = foldApprovals(two, asked(approval({ expiresAt: 900_000 })));
    expect(again?.map((a) => [a.toolUseId, a.expiresAt])).toEqual([
      ["tu_2", 600_000],
      ["tu_1", 900_000],
    ]);
  });

  it("takes the list thread:updated carries as the server's word (none when it has none)", () => {
    const list = [approval(), approval({ toolUseId: "tu_2" })];
    expect(foldApprovals(list, frame("thread:updated", { threadId: "thr_1", thread: thread({ pendingApprovals: [approval({ toolUseId: "tu_2" })] }) }))).toEqual([
      approval({ toolUseId: "tu_2" }),
    ]);
    expect(foldApprovals(list, frame("thread:updated", { threadId: "thr_1", thread: thread() }))).toEqual([]);
  });

  it("drops a call once its result arrives, and every call of a run that ended", () => {
    const list = [approval(), approval({ toolUseId: "tu_2" }), approval({ runId: "run_2", toolUseId: "tu_3" })];
    expect(foldApprovals(list, result("tu_1"))?.map((a) => a.toolUseId)).toEqual(["tu_2", "tu_3"]);
    expect(
      foldApprovals(list, frame("pipeline:error", { threadId: "thr_1", runId: "run_1", code: "aborted", message: "stopped", retryable: false }))?.map((a) => a.toolUseId),
    ).toEqual(["tu_3"]);
    expect(
      foldApprovals(list, frame("pipeline:complete", { threadId: "thr_1", runId: "run_2", commandsHandled: [], commandsUnhandled: [], durationMs: 1 }))?.map(
        (a) => a.toolUseId,
      ),
    ).toEqual(["tu_1", "tu_2"]);
  });

  it("answers the same list for what changes nothing (no cache write then)", () => {
    const list = [approval()];
    expect(foldApprovals(list, result("tu_other"))).toBe(list);
    expect(foldApprovals(list, frame("pipeline:stream", { threadId: "thr_1", runId: "run_1", type: "text", delta: "hi" }))).toBe(list);
    expect(foldApprovals(list, frame("pipeline:complete", { threadId: "thr_1", runId: "run_9", commandsHandled: [], commandsUnhandled: [], durationMs: 1 }))).toBe(list);
    expect(touchesApprovals(frame("pipeline:stream", { threadId: "thr_1", runId: "run_1", type: "text", delta: "hi" }))).toBe(false);
    expect(touchesApprovals(result("tu_1"))).toBe(true);
    expect(touchesApprovals(asked(approval()))).toBe(true);
  });
});

describe("an approval in words", () => {
  it("says when an undecided call is declined by itself", () => {
    expect(describeExpiry(600_000, 60_000)).toBe("declined automatically in 9 min");
    expect(describeExpiry(600_000, 0)).toBe("declined automatically in 10 min");
    expect(describeExpiry(600_000, 570_000)).toBe("declined automatically in less than a minute");
    expect(describeExpiry(600_000, 600_000)).toBe("being declined automatically now");
    expect(describeExpiry(3 * 3_600_000, 0)).toBe("declined automatically in 3 h");
  });

  it("reads the decision's request as the card's phase; a 409 or 404 leaves nothing to decide", () => {
    expect(approvalPhase({ status: "idle", error: null })).toEqual({ name: "waiting" });
    expect(approvalPhase({ status: "pending", variables: { approve: false }, error: null })).toEqual({ name: "posting", approve: false });
    expect(approvalPhase({ status: "success", variables: { approve: true }, error: null })).toEqual({ name: "decided", approve: true });
    const conflict = new ApiError(409, "conflict", "Already decided.");
    expect(approvalPhase({ status: "error", variables: { approve: true }, error: conflict })).toEqual({ name: "gone" });
    expect(approvalPhase({ status: "error", error: new ApiError(404, "not_found", "Unknown.") })).toEqual({ name: "gone" });
    const down = new ApiError(0, "network", "Network error");
    expect(approvalPhase({ status: "error", error: down })).toEqual({ name: "failed", error: down });
  });
});

describe("where the chat shows a waiting call", () => {
  /** A live run with a tool call block for each id, as the chat's reducer folds it from the stream. */
  const run = (runId: string, toolUseIds: string[]): LiveRun => {
    let state = chatReducer(initialChatState("thr_1"), { type: "frame", frame: frame("pipeline:start", { threadId: "thr_1", runId, messageId: "m0" }) });
    for (const [i, toolUseId] of toolUseIds.entries()) {
      const call = frame("pipeline:stream", { threadId: "thr_1", runId, type: "tool_call", toolUseId, toolName: "github__x", input: {} }, i + 2);
      state = chatReducer(state, { type: "frame", frame: call });
    }
    return state.runs[runId];
  };
  const waiting = [approval({ toolUseId: "tu_live" }), approval({ toolUseId: "tu_loose" }), approval({ runId: "run_old", toolUseId: "tu_stored" }), approval({ runId: "run_gone", toolUseId: "tu_lost" })];

  it("in its run's group when the run has no card for it (joined mid-way, its stream not replayed)", () => {
    expect(looseApprovals(waiting, run("run_1", ["tu_live"])).map((a) => a.toolUseId)).toEqual(["tu_loose"]);
    expect(looseApprovals(waiting, run("run_9", []))).toEqual([]);
  });

  it("at the end when neither a live run nor a stored tool call shows it", () => {
    const items: TimelineItem[] = [
      { type: "message", key: "m1", message: message({ id: "m1", role: "assistant", kind: "tool_call", metadata: { runId: "run_old", toolUseId: "tu_stored" } }) },
      { type: "run", key: "run_1", run: run("run_1", ["tu_live"]), final: null, retryContent: null },
    ];
    expect(unplacedApprovals(waiting, items).map((a) => a.toolUseId)).toEqual(["tu_lost"]);
  });
});
