// Tool calls that wait for the user's approval (PROTOCOL.md, "MCP servers"). A call that asks is kept
// durable with the run's point (the turns so far, invoker/types.ts ResumePoint) and the run's prompt,
// then waits with no model call open: the object may hibernate, restart, be redeployed. The decision
// (POST .../approvals/:toolUseId, or the alarm at `expiresAt`) wakes the wait when the same instance
// still holds it; otherwise the run queue finds the run cut short and goes on from the point
// (Run.resume). A stop declines what waits.
import type { PendingApproval } from "../../protocol";
import type { Config } from "../env";
import type { ResumePoint, ToolRun } from "../invoker/types";
import type { StructuredPrompt } from "../plugins/contract";
import type { Alarms } from "../lib/alarms";
import type { Broadcaster } from "./broadcaster";
import type { RoomStore } from "./store";
import type { ApprovalRow } from "./store/approvals";

/** How a wait ended. `approve` false: declined by the user, by the clock, or by a stop. */
export interface Decision {
  approve: boolean;
  reason: "approved" | "declined" | "timeout" | "stopped";
}

export class Approvals {
  private readonly waiters = new Map<string, (d: Decision) => void>();

  constructor(
    private readonly store: RoomStore,
    private readonly events: Broadcaster,
    private readonly alarms: Alarms,
    /** The thread's pending calls changed: its report carries them to the owner's list. */
    private readonly onChange: () => void,
  ) {}

  /**
   * Waits for the decision on `call`. Asked once: a run that goes on after a restart finds the same
   * question (still open, or decided meanwhile) and does not ask again.
   */
  async wait(call: Omit<PendingApproval, "expiresAt">, ttlMs: number, keep: () => { point: ResumePoint; prompt: StructuredPrompt }, signal: AbortSignal): Promise<Decision> {
    const row = this.store.approvals.get(call.toolUseId);
    if (row && row.decision !== null) return decisionOf(row);
    if (!row) {
      const expiresAt = Date.now() + ttlMs;
      const threadId = this.store.thread.get()!.id;
      // The point is built only for a new question: a run that goes on from it asks nothing again.
      const kept = keep();
      this.store.transaction(() => {
        this.store.approvals.ask(call, expiresAt, { point: JSON.stringify(kept.point), prompt: JSON.stringify(kept.prompt) });
        this.events.emit("tool:approval", { threadId, ...call, expiresAt });
        this.changed();
      });
      // The alarm declines it then, whether or not this instance still holds the wait.
      await this.alarms.request(expiresAt);
    }
    if (signal.aborted) return this.settle(call.toolUseId, { approve: false, reason: "stopped" });
    return new Promise<Decision>((resolve) => {
      const onAbort = () => void this.settle(call.toolUseId, { approve: false, reason: "stopped" });
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.set(call.toolUseId, (d) => {
        signal.removeEventListener("abort", onAbort);
        resolve(d);
      });
    });
  }

  /**
   * The user's decision. "waiting": no instance holds the wait (the object restarted), so the run
   * queue must go on from the point.
   */
  decide(runId: string, toolUseId: string, approve: boolean): "unknown" | "decided" | "woken" | "waiting" {
    const row = this.store.approvals.get(toolUseId);
    if (!row || row.run_id !== runId) return "unknown";
    if (row.decision !== null) return "decided";
    const held = this.waiters.has(toolUseId);
    this.settle(toolUseId, { approve, reason: approve ? "approved" : "declined" });
    return held ? "woken" : "waiting";
  }

  /** The alarm: what waited past its time is declined. Answers whether a run must go on from its point. */
  expire(now = Date.now()): boolean {
    let orphaned = false;
    for (const r of this.store.approvals.expired(now)) {
      if (!this.waiters.has(r.tool_use_id)) orphaned = true;
      this.settle(r.tool_use_id, { approve: false, reason: "timeout" });
    }
    return orphaned;
  }

  /** When the next open question declines by itself (for the alarm), or null. */
  nextExpiry(): number | null {
    return this.store.approvals.nextExpiry();
  }

  /** The point a run kept when it began to wait, with its prompt; null for a run that never waited. */
  pointOf(runId: string): { point: ResumePoint; prompt: StructuredPrompt } | null {
    const kept = this.store.approvals.pointOf(runId);
    return kept && { point: JSON.parse(kept.point) as ResumePoint, prompt: JSON.parse(kept.prompt) as StructuredPrompt };
  }

  /**
   * The run ended: its point goes, and a question still open is closed as stopped. The questions stay
   * (a late answer is told it was decided; they are a few rows a thread).
   */
  forgetRun(runId: string): void {
    if (this.store.approvals.forgetRun(runId)) this.changed();
  }

  private settle(toolUseId: string, d: Decision): Decision {
    this.store.approvals.decide(toolUseId, d.approve, d.reason);
    this.changed();
    const waiter = this.waiters.get(toolUseId);
    this.waiters.delete(toolUseId);
    waiter?.(d);
    return d;
  }

  /** The thread as now stored goes to its sockets and its owner's list. */
  private changed(): void {
    this.store.thread.pendingChanged();
    const t = this.store.thread.get();
    if (!t) return;
    this.events.threadUpdated(t);
    this.onChange();
  }
}

/** What the model is told of a call that did not run for want of approval. */
export const NOT_APPROVED: Record<Exclude<Decision["reason"], "approved">, string> = {
  declined: "The user declined this tool call; it did not run. Do not try it again unless they ask.",
  timeout: "Nobody approved this tool call in time; it did not run.",
  stopped: "The run was stopped while this tool call waited for approval; it did not run.",
};

/**
 * A call that asks first (a plugin tool with `asks`): null once approved, else the error result the
 * model gets. The wait does not count against the run's timeout.
 */
export async function approvedFirst(
  parts: { approvals: Approvals; config: Pick<Config, "approvalTimeoutMs"> },
  call: Omit<PendingApproval, "expiresAt" | "input"> & { input: unknown },
  keep: () => { point: ResumePoint; prompt: StructuredPrompt },
  signal: AbortSignal,
  hold?: { pause(): void; resume(): void },
): Promise<ToolRun | null> {
  hold?.pause();
  try {
    const input = (call.input && typeof call.input === "object" ? call.input : {}) as PendingApproval["input"];
    const decision = await parts.approvals.wait({ ...call, input }, parts.config.approvalTimeoutMs, keep, signal);
    return decision.reason === "approved" ? null : { content: NOT_APPROVED[decision.reason], isError: true };
  } finally {
    hold?.resume();
  }
}

function decisionOf(r: ApprovalRow): Decision {
  return { approve: r.decision === 1, reason: (r.reason ?? (r.decision === 1 ? "approved" : "declined")) as Decision["reason"] };
}
