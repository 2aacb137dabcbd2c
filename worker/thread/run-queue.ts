// The thread's runs, one at a time, oldest first, kept in the object's SQLite so that none is lost.
// A watchdog alarm beats while there is work: after an eviction or restart it wakes the object,
// which fails the run it finds marked running (that instance's memory is gone) and goes on.
import type { D1Usage } from "../db/client";
import { ABORT_STOP, ABORT_TIMEOUT, RunError } from "../invoker/errors";
import { newId } from "../lib/ids";
import type { Logger } from "../plugins/contract";
import type { Broadcaster } from "./broadcaster";
import { failLostRun, handleMessage, type PipelineDeps } from "./pipeline";
import type { InboxItem, RoomStore } from "./room-store";

const HEARTBEAT_MS = 30_000;

export interface RunQueueDeps {
  store: () => RoomStore;
  broadcaster: () => Broadcaster;
  pipeline: () => PipelineDeps;
  setAlarm(at: number): Promise<void>;
  logger: Logger;
  d1Usage: D1Usage;
  timeoutMs: number;
}

export class RunQueue {
  running: { runId: string; taskId: string | null; controller: AbortController } | null = null;
  private pumping = false;
  private runDone: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly deps: RunQueueDeps) {}

  /** Runs what is queued until nothing is; a call while it runs is a no-op. */
  async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    const store = this.deps.store();
    try {
      for (let item = store.head(); item && !this.closed; item = store.head()) {
        // `pumping` lives in memory: a run marked running that this instance did not start was lost.
        this.runDone = item.state === "running" ? this.failLost(item) : this.execute(item);
        await this.runDone;
        this.runDone = null;
        if (!this.closed) store.dequeue(item.pos);
      }
    } catch (err) {
      this.deps.logger.error("queue stalled; the watchdog will retry", { error: String(err) });
    } finally {
      this.pumping = false;
    }
  }

  /** The watchdog: resumes the queue, and keeps beating while work is left. */
  async heartbeat(): Promise<void> {
    if (this.closed || !this.deps.store().head()) return;
    if (!this.pumping) void this.pump();
    await this.deps.setAlarm(Date.now() + HEARTBEAT_MS);
  }

  stop(): boolean {
    this.running?.controller.abort(ABORT_STOP);
    return this.running !== null;
  }

  cancelTask(taskId: string): void {
    this.deps.store().dropQueuedForTask(taskId);
    if (this.running?.taskId === taskId) this.running.controller.abort(ABORT_STOP);
  }

  /** Stops for good: the run in progress is aborted and given up to 5 s to unwind. */
  async close(): Promise<void> {
    this.closed = true;
    this.stop();
    if (this.runDone) await Promise.race([this.runDone, new Promise((r) => setTimeout(r, 5_000))]);
  }

  private async execute(item: InboxItem): Promise<void> {
    const { store, broadcaster, logger, d1Usage } = { ...this.deps, store: this.deps.store(), broadcaster: this.deps.broadcaster() };
    const runId = newId("run");
    store.markRunning(item.pos, runId);
    store.startRunEvents(runId, broadcaster.lastSeq + 1);
    await this.deps.setAlarm(Date.now() + HEARTBEAT_MS);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(ABORT_TIMEOUT), this.deps.timeoutMs);
    this.running = { runId, taskId: item.taskId, controller };
    const before = { ...d1Usage };
    const threadId = item.message.threadId;
    try {
      const outcome = await handleMessage(this.deps.pipeline(), {
        threadId,
        runId,
        message: item.message,
        taskId: item.taskId ?? undefined,
        signal: controller.signal,
      });
      logger.info("run finished", {
        runId,
        status: outcome.status,
        durationMs: outcome.durationMs,
        d1Statements: d1Usage.statements - before.statements,
        d1RoundTrips: d1Usage.roundTrips - before.roundTrips,
      });
    } catch (err) {
      const error = err instanceof RunError ? err : new RunError("internal", "Internal error", false);
      logger.error("run failed before it began", { runId, error: String(err) });
      broadcaster.emit("pipeline:error", { threadId, runId, code: error.code, message: error.message, retryable: error.retryable });
    } finally {
      clearTimeout(timer);
      this.running = null;
    }
  }

  /** The object restarted mid-run: what was streamed is in the replay buffer; fail it cleanly. */
  private async failLost(item: InboxItem): Promise<void> {
    const runId = item.runId ?? newId("run");
    const threadId = item.message.threadId;
    try {
      const req = { threadId, runId, message: item.message, taskId: item.taskId ?? undefined };
      await failLostRun(this.deps.pipeline(), req, this.deps.store().streamedText(runId));
    } catch (err) {
      this.deps.logger.error("could not fail a lost run cleanly", { runId, error: String(err) });
      const message = "The thread restarted during this run";
      this.deps.broadcaster().emit("pipeline:error", { threadId, runId, code: "interrupted", message, retryable: true });
    }
  }
}
