// The thread's runs, one at a time, oldest first, from the inbox in the object's SQLite, so none is
// lost. A watchdog alarm beats while there is work: after an eviction or restart (a deploy) it wakes
// the object, which finishes what the last instance left: a stored run gets its end event, and a run
// cut off mid-way is recovered (Run.recover: answered again, or failed as `interrupted`).
import type { D1Usage } from "../../db/client";
import { ABORT_STOP, ABORT_TIMEOUT, RunError } from "../../invoker/errors";
import { newId } from "../../lib/ids";
import type { Alarms } from "../../lib/alarms";
import { since, type Meter, type MeterCounts } from "../../lib/meter";
import type { Mirrored } from "../outflow";
import { sendEnd } from "./ending";
import { Run } from "./run";
import type { RunParts } from "./parts";
import type { InboxItem, ThreadRecord } from "../store";
import type { RunHold } from "./mcp-tools";
import type { Phases } from "./phases";
import type { RunOutcome } from "../../plugins/contract";

const HEARTBEAT_MS = 30_000;
/**
 * A run's housekeeping (D1's flush, its log line, the replay buffer's pruning) waits this long after
 * the run, so a message sent right after an answer (a follow-up, the next one queued) reaches the
 * model first.
 */
const HOUSEKEEPING_DELAY_MS = 50;

export interface QueueParts {
  alarms: Alarms;
  d1: D1Usage;
  /** What the object has cost: each run's log line says what it cost since the line before. */
  meter: Meter;
  /** After each run, in the turn of its end events: the owner's object's report (and the spend settled), sent. */
  report(): Promise<void>;
  /** After each run, with its housekeeping: the D1 flush (what it wrote), and what else can wait. */
  housekeeping(): Promise<Mirrored>;
  /** Keeps the object alive for work done after a run. */
  waitUntil(work: Promise<unknown>): void;
}

export class RunQueue {
  private running: { run: Run; controller: AbortController } | null = null;
  private pumping = false;
  private runDone: Promise<void> | null = null;
  private closed = false;
  /** The run in progress waits for the user's approval. */
  private waiting = false;
  /** The meter as the last run's log line read it (as the object started, before its first run). */
  private counted: MeterCounts;
  /** Runs whose housekeeping is still to come. */
  private untidy = 0;
  /** People's messages queued in this instance, with their way so far (phases.ts). */
  private readonly arrivals = new Map<string, Phases>();

  constructor(
    private readonly parts: RunParts,
    private readonly queue: QueueParts,
  ) {
    this.counted = queue.meter.read();
  }

  private get store() {
    return this.parts.store;
  }

  /** A run's housekeeping is still to come (HOUSEKEEPING_DELAY_MS). */
  get tidying(): boolean {
    return this.untidy > 0;
  }

  /** The run in progress, if any. */
  get runningId(): string | null {
    return this.running?.run.id ?? null;
  }

  /** Runs what is queued until nothing is; a call while it runs is a no-op. */
  async pump(): Promise<void> {
    if (this.pumping || this.closed) return;
    this.pumping = true;
    try {
      for (let item = this.store.runs.head(); item && !this.closed; item = this.store.runs.head()) {
        // `pumping` lives in memory: a run marked running that this instance did not start was lost.
        this.runDone = item.state === "running" ? this.recoverLost(item) : this.execute(item);
        await this.runDone;
        this.runDone = null;
      }
    } catch (err) {
      this.parts.logger.error("queue stalled; the watchdog will retry", { error: String(err) });
    } finally {
      this.pumping = false;
    }
  }

  /**
   * Loads what a first post needs before it comes: the model's view of the branch, step 0's inputs
   * and the plugins they configure, the spend so far. Whatever needed D1 is then held.
   */
  async prewarm(t: ThreadRecord): Promise<void> {
    this.parts.view.before(t.headId);
    await Promise.all([this.parts.stepZero.ready(t.ownerId), this.parts.spend.check(t.ownerId)]);
  }

  /** A message was queued: the watchdog is armed, and the queue runs. */
  wake(): void {
    void this.queue.alarms.request(Date.now() + HEARTBEAT_MS);
    void this.pump();
  }

  /** On wake-up: end events a restart held back, then the queue. */
  recover(): void {
    const thread = this.store.thread.get();
    if (!thread) return;
    for (const run of this.store.runs.unended()) sendEnd(this.parts, thread.id, run.runId, run.end!);
  }

  /**
   * The watchdog: resumes the queue, and keeps beating while work is left. A run that waits for the
   * user's approval needs no beat: the alarm is left for when its question expires (waiting is free).
   */
  async heartbeat(approvalExpiry: number | null = null): Promise<void> {
    if (this.closed || !this.store.runs.head()) return;
    if (!this.pumping) void this.pump();
    await this.queue.alarms.request(this.waiting && approvalExpiry !== null ? approvalExpiry : Date.now() + HEARTBEAT_MS);
  }

  stop(): boolean {
    this.running?.controller.abort(ABORT_STOP);
    return this.running !== null;
  }

  cancelTask(taskId: string): void {
    this.store.runs.dropQueuedForTask(taskId);
    if (this.running?.run.taskId === taskId) this.running.controller.abort(ABORT_STOP);
  }

  /** Stops for good: the run in progress is aborted and given up to 5 s to unwind. */
  async close(): Promise<void> {
    this.closed = true;
    this.stop();
    if (this.runDone) await Promise.race([this.runDone, new Promise((r) => setTimeout(r, 5_000))]);
  }

  /** A person's message, queued: its way so far, for its run to go on timing (phases.ts). */
  arrived(messageId: string, phases: Phases): void {
    this.arrivals.set(messageId, phases);
  }

  private execute(item: InboxItem): Promise<void> {
    const phases = this.arrivals.get(item.messageId) ?? null;
    this.arrivals.delete(item.messageId);
    const run = new Run(this.parts, newId("run"), item, phases);
    run.announce();
    return this.drive(run, (signal, hold, onModelRequest) => run.handle(signal, hold, onModelRequest));
  }

  /**
   * A run from start to end, under the thread's timeout, which does not count the time it waits for
   * the user's approval (`hold`).
   */
  private async drive(run: Run, go: (signal: AbortSignal, hold: RunHold, onModelRequest: () => void) => Promise<RunOutcome>): Promise<void> {
    const { d1 } = this.queue;
    const controller = new AbortController();
    const clock = new RunClock(this.parts.config.runTimeoutMs, () => controller.abort(ABORT_TIMEOUT));
    const hold: RunHold = {
      pause: () => ((this.waiting = true), clock.pause()),
      resume: () => ((this.waiting = false), clock.resume()),
    };
    this.running = { run, controller };
    const atStart = d1.roundTrips;
    const callsAtStart = this.queue.meter.read();
    // What the run waited on before its model request: D1's round trips, and calls to other objects and R2.
    let beforeModel = null as { d1: number; calls: number } | null;
    let finished: Record<string, unknown> | null = null;
    try {
      const outcome = await go(controller.signal, hold, () => {
        const calls = since(this.queue.meter.read(), callsAtStart);
        beforeModel = { d1: d1.roundTrips - atStart, calls: calls.rpcs + calls.r2 };
      });
      finished = {
        threadId: this.store.thread.get()?.id,
        status: outcome.status,
        durationMs: outcome.durationMs,
        d1BeforeModel: beforeModel?.d1 ?? null,
        callsBeforeModel: beforeModel?.calls ?? null,
        d1RoundTrips: d1.roundTrips - atStart,
        ...(run.phases ? { phases: run.phases.summary() } : {}),
      };
    } catch (err) {
      // Only a fault before the pipeline could take over lands here; the run still ends cleanly.
      run.logger.error("run failed before it began", { error: String(err) });
      run.abandon(err instanceof RunError ? err : new RunError("internal", "Internal error", false));
    } finally {
      clock.pause();
      this.waiting = false;
      this.running = null;
      this.housekeep(finished && ((mirror, cost) => run.logger.info("run finished", { ...finished, mirror, cost })));
    }
  }

  /**
   * A run the last instance left mid-way (a restart cut it short). One that was waiting for the user's
   * approval goes on from the point it kept, waiting again if no decision came meanwhile.
   */
  private async recoverLost(item: InboxItem): Promise<void> {
    const run = new Run(this.parts, item.runId ?? newId("run"), item);
    if (this.parts.approvals.pointOf(run.id)) return this.drive(run, (signal, hold) => run.resume(signal, hold));
    try {
      await run.recover();
    } finally {
      this.housekeep(null);
    }
  }

  /**
   * The run's end events leave once the writes before them are durable (the output gate), when this
   * turn yields; the owner's object's report, sent in it, leaves with them. The rest waits
   * (HOUSEKEEPING_DELAY_MS).
   */
  private housekeep(log: ((mirror: Mirrored, cost: MeterCounts) => void) | null): void {
    const reported = this.queue.report();
    this.untidy++;
    const later = new Promise((resolve) => setTimeout(resolve, HOUSEKEEPING_DELAY_MS)).then(async () => {
      if (!this.closed) this.store.prune(Date.now());
      const [flushed] = await Promise.all([this.queue.housekeeping(), reported]);
      // What the object wrote, read and sent out since the last run's line: this message's cost.
      const now = this.queue.meter.read();
      const cost = since(now, this.counted);
      this.counted = now;
      log?.(flushed, cost);
    }).finally(() => this.untidy--);
    this.queue.waitUntil(later);
  }
}

/** The run's timeout, which stops while the run waits for the user. */
class RunClock {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private since = 0;

  constructor(
    private left: number,
    private readonly onExpire: () => void,
  ) {
    this.resume();
  }

  pause(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.left -= Date.now() - this.since;
  }

  resume(): void {
    if (this.timer) return;
    this.since = Date.now();
    this.timer = setTimeout(this.onExpire, Math.max(0, this.left));
  }
}
