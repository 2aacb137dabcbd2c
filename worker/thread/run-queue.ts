// The thread's runs, one at a time, oldest first, from the inbox in the object's SQLite, so none is
// lost. A watchdog alarm beats while there is work: after an eviction or restart (a deploy) it wakes
// the object, which finishes what the last instance left: a stored run gets its end event; a run cut
// off mid-way in which no tool had run ends as `interrupted` and answers the same message again, once;
// one in which a tool had run fails as `interrupted` (a tool may have had effects: it is not repeated).
// Either way the text streamed so far is kept, marked.
import type { D1Usage } from "../db/client";
import { ABORT_STOP, ABORT_TIMEOUT, RunError } from "../invoker/errors";
import { emptyUsage, type ApiMessage } from "../invoker/types";
import { newId } from "../lib/ids";
import type { Alarms } from "./alarms";
import { beginRun, failRun, handleMessage, type PipelineDeps } from "./pipeline";
import { endRun } from "./run-end";
import type { InboxItem } from "./store";
import { publicThread } from "./store/thread-row";

const HEARTBEAT_MS = 30_000;
/**
 * A run's housekeeping (its log line, the replay buffer's pruning) waits this long after the run, so
 * a message sent right after an answer (a follow-up, the next one queued) reaches the model first.
 */
const HOUSEKEEPING_DELAY_MS = 50;
/** How often one message's run starts again by itself after a restart cut it short. */
const MAX_RESTARTS = 1;

/** What a run's mirror flush wrote, and its D1 round trips. */
export interface Mirrored {
  rows: number;
  d1RoundTrips: number;
}

export interface RunQueueDeps {
  pipeline: PipelineDeps;
  alarms: Alarms;
  d1: D1Usage;
  /** After each run: the mirror flush, sent in the turn of the run's end events. */
  afterRun(): Promise<Mirrored>;
  /** Keeps the object alive for work done after a run. */
  waitUntil(work: Promise<unknown>): void;
}

export class RunQueue {
  running: { runId: string; taskId: string | null; controller: AbortController } | null = null;
  private pumping = false;
  private runDone: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly deps: RunQueueDeps) {}

  private get store() {
    return this.deps.pipeline.store;
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
      this.deps.pipeline.logger.error("queue stalled; the watchdog will retry", { error: String(err) });
    } finally {
      this.pumping = false;
    }
  }

  /** On wake-up: end events a restart held back, then the queue. */
  recover(): void {
    const thread = this.store.thread.get();
    if (!thread) return;
    for (const run of this.store.runs.unended()) {
      endRun(this.deps.pipeline, { threadId: thread.id, runId: run.runId, thread: publicThread(thread) }, null, run.end!);
    }
  }

  /** Arms the watchdog for work just queued; it beats on while work is left. */
  arm(): void {
    void this.deps.alarms.request(Date.now() + HEARTBEAT_MS);
  }

  /** The watchdog: resumes the queue, and keeps beating while work is left. */
  async heartbeat(): Promise<void> {
    if (this.closed || !this.store.runs.head()) return;
    if (!this.pumping) void this.pump();
    await this.deps.alarms.request(Date.now() + HEARTBEAT_MS);
  }

  stop(): boolean {
    this.running?.controller.abort(ABORT_STOP);
    return this.running !== null;
  }

  cancelTask(taskId: string): void {
    this.store.runs.dropQueuedForTask(taskId);
    if (this.running?.taskId === taskId) this.running.controller.abort(ABORT_STOP);
  }

  /** Stops for good: the run in progress is aborted and given up to 5 s to unwind. */
  async close(): Promise<void> {
    this.closed = true;
    this.stop();
    if (this.runDone) await Promise.race([this.runDone, new Promise((r) => setTimeout(r, 5_000))]);
  }

  private async execute(item: InboxItem): Promise<void> {
    const { pipeline, d1 } = this.deps;
    const message = this.store.messages.get(item.messageId);
    const runId = newId("run");
    const thread = this.store.thread.get()!;
    // Announced and recorded together: recovery never fails a run no client saw start.
    this.store.transaction(() => {
      this.store.runs.markRunning(item.pos, runId);
      this.store.runs.started(runId, item.messageId, pipeline.events.lastSeq + 1, Date.now(), item.queuedSeq);
      pipeline.events.emit("pipeline:start", { threadId: thread.id, runId, messageId: item.messageId });
    });
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(ABORT_TIMEOUT), pipeline.config.runTimeoutMs);
    this.running = { runId, taskId: item.taskId, controller };
    const atStart = d1.roundTrips;
    let beforeModel: number | null = null;
    // Each line of the run names it, and the request that queued it (X-Request-Id).
    const logger = pipeline.logger.with({ runId, ...(item.requestId ? { requestId: item.requestId } : {}) });
    let finished: Record<string, unknown> | null = null;
    try {
      if (!message) throw new RunError("internal", "The message of this run is gone", false);
      const onModelRequest = () => void (beforeModel = d1.roundTrips - atStart);
      const outcome = await handleMessage({ ...pipeline, logger }, { runId, item, message, signal: controller.signal, onModelRequest });
      finished = { status: outcome.status, durationMs: outcome.durationMs, d1BeforeModel: beforeModel, d1RoundTrips: d1.roundTrips - atStart };
    } catch (err) {
      // Only a fault before the pipeline could take over lands here; the run still ends cleanly.
      const error = err instanceof RunError ? err : new RunError("internal", "Internal error", false);
      logger.error("run failed before it began", { error: String(err) });
      this.abandon(item, runId, error);
    } finally {
      clearTimeout(timer);
      this.running = null;
      this.housekeep(this.deps.afterRun(), finished && ((mirror) => logger.info("run finished", { ...finished, mirror })));
    }
  }

  /**
   * The run's end events leave once the writes before them are durable (the output gate), when this
   * turn yields; the mirror's batch, sent in it, leaves with them. The rest waits (HOUSEKEEPING_DELAY_MS).
   */
  private housekeep(mirrored: Promise<Mirrored>, log: ((mirror: Mirrored) => void) | null): void {
    const later = new Promise((resolve) => setTimeout(resolve, HOUSEKEEPING_DELAY_MS)).then(async () => {
      if (!this.closed) this.store.runs.prune(Date.now());
      const mirror = await mirrored;
      log?.(mirror);
    });
    this.deps.waitUntil(later);
  }

  /**
   * The object restarted mid-run. With no tool run yet, the run ends and its message is queued again
   * (once); otherwise it fails through the pipeline's failure path. Its text is kept either way.
   */
  private async recoverLost(item: InboxItem): Promise<void> {
    const { pipeline } = this.deps;
    const runId = item.runId ?? newId("run");
    const message = this.store.messages.get(item.messageId);
    const record = item.runId ? this.store.runs.get(item.runId) : null;
    if (message && record && !record.toolRan && item.restarts < MAX_RESTARTS) return this.restart(item, runId);
    const error = new RunError(
      "interrupted",
      record?.toolRan
        ? "The thread restarted during this run, after a tool had run; it was not repeated, since the tool may have had effects. Send the message again to retry."
        : "The thread restarted during this run",
      true,
    );
    try {
      if (!message) throw new RunError("internal", "The message of this run is gone", false);
      const req = { runId, item, message };
      const run = await beginRun(pipeline, req);
      const firstSeq = this.store.runs.firstSeqOf(runId);
      const output = firstSeq === null ? "" : this.store.replay.streamedText(runId, firstSeq);
      const turns: ApiMessage[] = [{ role: "user", content: [{ type: "text", text: run.content }] }];
      if (output) turns.push({ role: "assistant", content: [{ type: "text", text: output }] });
      await failRun(pipeline, run, req, error, { output, turns, usage: emptyUsage() });
    } catch (err) {
      pipeline.logger.error("could not fail a lost run cleanly", { runId, error: String(err) });
      this.abandon(item, runId, error);
    } finally {
      this.housekeep(this.deps.afterRun(), null);
    }
  }

  /** Ends a run a restart cut short and queues its message again: the next run answers it afresh. */
  private restart(item: InboxItem, runId: string): void {
    const { pipeline } = this.deps;
    const thread = this.store.thread.get()!;
    const firstSeq = this.store.runs.firstSeqOf(runId);
    const output = firstSeq === null ? "" : this.store.replay.streamedText(runId, firstSeq);
    const end = {
      status: "failed" as const,
      code: "interrupted" as const,
      message: "The thread restarted during this run; it is answering again",
      retryable: false,
    };
    const partial = this.store.transaction(() => {
      const now = pipeline.writer.clock.now();
      const kept = output
        ? pipeline.writer.addMessage({
            id: newId("msg", now),
            threadId: thread.id,
            role: "assistant",
            kind: "text",
            source: "assistant",
            content: output,
            model: thread.model,
            metadata: { runId, error: "interrupted", restarted: true },
            clientMessageId: null,
            parentId: item.messageId,
            input: false,
            createdAt: now,
          })
        : undefined;
      this.store.runs.requeue(item.pos);
      this.store.runs.stored(runId, end);
      return kept;
    });
    if (partial) pipeline.events.emit("chat:message", { threadId: thread.id, message: partial });
    endRun(pipeline, { threadId: thread.id, runId, thread: publicThread(thread) }, null, end);
    pipeline.logger.info("run restarted after a restart of the thread", { runId, messageId: item.messageId, ...(item.requestId ? { requestId: item.requestId } : {}) });
  }

  /** The last resort: the run leaves the queue and its clients get pipeline:error (after its start). */
  private abandon(item: InboxItem, runId: string, error: RunError): void {
    const { events } = this.deps.pipeline;
    const thread = this.store.thread.get();
    const end = { status: "failed" as const, code: error.code, message: error.message, retryable: error.retryable };
    this.store.transaction(() => {
      this.store.runs.dequeue(item.pos);
      if (!this.store.runs.get(runId)) {
        this.store.runs.started(runId, item.messageId, events.lastSeq + 1, Date.now(), item.queuedSeq);
        if (thread) events.emit("pipeline:start", { threadId: thread.id, runId, messageId: item.messageId });
      }
      this.store.runs.stored(runId, end);
    });
    if (thread) endRun(this.deps.pipeline, { threadId: thread.id, runId, thread: publicThread(thread) }, null, end);
  }
}
