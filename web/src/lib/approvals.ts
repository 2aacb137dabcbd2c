// Tool calls waiting for the user's decision (PROTOCOL.md "MCP servers"). The thread's
// `pendingApprovals` is the one list: read with the thread (so a reload finds them), then kept
// current between reads by the thread's socket events, folded here. queries/approvals.ts writes the
// fold into the query cache, where the chat's cards and the sidebar's badge read it.

import type { EventFrame, PendingApproval } from "@protocol";
import { ApiError } from "../api";
import type { LiveRun } from "./liveRun";
import type { TimelineItem } from "./timeline";

type Approvals = readonly PendingApproval[] | undefined;

/** Whether `frame` may change a thread's pending approvals (most events, text deltas first, do not). */
export function touchesApprovals(frame: EventFrame): boolean {
  switch (frame.event) {
    case "tool:approval":
    case "thread:updated":
    case "pipeline:complete":
    case "pipeline:error":
      return true;
    case "pipeline:stream":
      return frame.data.type === "tool_result";
    default:
      return false;
  }
}

/**
 * The list after `frame` (the same list when it changes nothing):
 * - `tool:approval` adds the call (replacing an older copy of it, e.g. when a replay repeats it);
 * - `thread:updated` carries the thread as stored, whose list is the server's word (none when absent);
 * - the call's `tool_result` means it was decided (or declined by itself): it waits no more;
 * - the run's end (`pipeline:complete`, `pipeline:error`) leaves none of its calls waiting.
 */
export function foldApprovals(list: Approvals, frame: EventFrame): Approvals {
  switch (frame.event) {
    case "tool:approval": {
      const { threadId: _threadId, ...approval } = frame.data;
      return [...(list ?? []).filter((a) => a.toolUseId !== approval.toolUseId), approval];
    }
    case "thread:updated":
      return frame.data.thread.pendingApprovals ?? [];
    case "pipeline:stream": {
      if (frame.data.type !== "tool_result") return list;
      const { toolUseId } = frame.data;
      return list?.some((a) => a.toolUseId === toolUseId) ? list.filter((a) => a.toolUseId !== toolUseId) : list;
    }
    case "pipeline:complete":
    case "pipeline:error": {
      const { runId } = frame.data;
      return list?.some((a) => a.runId === runId) ? list.filter((a) => a.runId !== runId) : list;
    }
    default:
      return list;
  }
}

// ---------- Where the chat shows them ----------
// A waiting call is shown on its tool card. One whose card is not there (a reload whose run's stream
// was not replayed) gets a card of its own: in its run's group when the run is shown live, else at
// the end of the conversation, where the run in progress is.

/** The calls of `run` that wait for the user but have no tool_call block in it. */
export function looseApprovals(pending: Iterable<PendingApproval>, run: LiveRun): PendingApproval[] {
  const calls = new Set(run.blocks.flatMap((b) => (b.kind === "tool_call" ? [b.toolUseId] : [])));
  return [...pending].filter((a) => a.runId === run.runId && !calls.has(a.toolUseId));
}

/** The waiting calls that neither a live run's group nor a stored tool_call message shows. */
export function unplacedApprovals(pending: Iterable<PendingApproval>, items: readonly TimelineItem[]): PendingApproval[] {
  const runs = new Set<string>();
  const calls = new Set<string>();
  for (const item of items) {
    if (item.type === "run") runs.add(item.run.runId);
    const meta = item.type === "message" && item.message.kind === "tool_call" ? item.message.metadata : null;
    if (typeof meta?.toolUseId === "string") calls.add(meta.toolUseId);
  }
  return [...pending].filter((a) => !runs.has(a.runId) && !calls.has(a.toolUseId));
}

/** When an undecided call is declined by itself, in words: "declined automatically in 9 min". */
export function describeExpiry(expiresAt: number, now: number): string {
  const ms = expiresAt - now;
  if (ms <= 0) return "being declined automatically now";
  if (ms < 60_000) return "declined automatically in less than a minute";
  const minutes = Math.round(ms / 60_000);
  if (minutes < 90) return `declined automatically in ${minutes} min`;
  return `declined automatically in ${Math.round(minutes / 60)} h`;
}

/** What an approval card shows, from its decision's request (a TanStack mutation's fields). */
export type ApprovalPhase =
  | { name: "waiting" }
  | { name: "posting"; approve: boolean }
  | { name: "decided"; approve: boolean }
  /** Decided already, elsewhere (another tab), or no longer known: nothing left to decide here. */
  | { name: "gone" }
  /** The decision did not reach the server: the buttons stay, to try again. */
  | { name: "failed"; error: unknown };

export function approvalPhase(decision: { status: "idle" | "pending" | "success" | "error"; variables?: { approve: boolean }; error: unknown }): ApprovalPhase {
  const approve = decision.variables?.approve ?? false;
  switch (decision.status) {
    case "pending":
      return { name: "posting", approve };
    case "success":
      return { name: "decided", approve };
    case "error":
      // 409: already decided (another tab, or the timeout); 404: the run no longer waits for it.
      if (decision.error instanceof ApiError && (decision.error.status === 409 || decision.error.status === 404)) return { name: "gone" };
      return { name: "failed", error: decision.error };
    default:
      return { name: "waiting" };
  }
}
