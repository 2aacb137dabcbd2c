// How a run ends, in two moves that recovery can tell apart:
//   settle  one storage transaction: the answer, the turns, the thread's activity, and the run off
//           the queue, marked `stored` with the end event it owes
//   end     the end event (pipeline:complete or pipeline:error, sent nowhere else), then the run is
//           marked `ended`
// A restart between the two finds a stored run and sends its end event; it never runs it again. A
// restart before `settle` leaves a run cut short, which Run.recover answers again or fails.
import type { Message } from "../../protocol";
import type { RunError } from "../invoker/errors";
import { costUsd } from "../invoker/prices";
import { isCompaction, type ApiMessage, type Usage } from "../invoker/types";
import type { RunInfo, RunOutcome, StructuredPrompt } from "../plugins/contract";
import { newSessionId } from "./model-view";
import type { RunParts } from "./run-parts";
import type { RunRecorder } from "./run-recorder";
import { assistantMessage, endEvent, failedEnd, userTurn } from "./run-records";
import type { InboxItem, MessageRecord, RunEnd, ThreadRecord } from "./store";
import { publicThread } from "./store/thread-row";

/** What a run leaves in storage as it settles. */
interface Settlement {
  output: string;
  turns: ApiMessage[];
  usage: Usage;
  metadata: Record<string, unknown>;
  end: RunEnd;
}

/** What a failed run had got before it failed. */
export interface Unfinished {
  output: string;
  turns: ApiMessage[];
  usage: Usage;
  prompt?: StructuredPrompt;
}

export class RunEnding {
  protected readonly parts: RunParts;
  protected readonly message: MessageRecord | null;

  constructor(
    parts: RunParts,
    readonly id: string,
    protected readonly item: InboxItem,
  ) {
    // Each line of the run names it, and the request that queued it (X-Request-Id).
    const logger = parts.logger.with({ runId: id, ...(item.requestId ? { requestId: item.requestId } : {}) });
    this.parts = { ...parts, logger };
    this.message = parts.store.messages.get(item.messageId);
  }

  get logger() {
    return this.parts.logger;
  }

  /** The end event of a run, and its mark as ended. */
  static end(parts: Pick<RunParts, "events" | "store">, threadId: string, runId: string, end: RunEnd): void {
    const { event, data } = endEvent(threadId, runId, end);
    parts.events.emit(event, data);
    parts.store.runs.ended(runId);
  }

  /** The last resort: the run leaves the queue and its clients get pipeline:error (after its start). */
  abandon(error: RunError): void {
    const { store, events } = this.parts;
    const thread = store.thread.get();
    const end = failedEnd(error);
    store.transaction(() => {
      store.runs.dequeue(this.item.pos);
      if (!store.runs.get(this.id)) {
        store.runs.started(this.id, this.item.messageId, events.lastSeq + 1, Date.now(), this.item.queuedSeq);
        if (thread) events.emit("pipeline:start", { threadId: thread.id, runId: this.id, messageId: this.item.messageId });
      }
      store.runs.stored(this.id, end);
      this.parts.approvals.forgetRun(this.id);
    });
    if (thread) RunEnding.end(this.parts, thread.id, this.id, end);
  }

  /**
   * A failed run: what the model did say is stored (marked with the error) and stays in its view as
   * far as it forms whole turns; plugins hear the outcome; the run ends with pipeline:error.
   */
  protected async fail(run: RunInfo, rec: RunRecorder, error: RunError, got: Unfinished): Promise<RunOutcome> {
    const durationMs = Date.now() - run.startedAt;
    const marker = error.code === "aborted" ? { aborted: true } : { error: error.code };
    const end = failedEnd(error);
    const metadata = { runId: run.runId, usage: got.usage, durationMs, ...marker, ...rec.web(), ...this.taskMark() };
    const stored = this.settle(run, { output: got.output, turns: got.turns, usage: got.usage, metadata, end });
    const { status, code, message, retryable } = end;
    const outcome = rec.outcome({
      status,
      durationMs,
      error: { code, message, retryable },
      prompt: got.prompt,
      assistantMessage: stored.assistant,
      commandsHandled: [],
      commandsUnhandled: [],
      usage: got.usage,
    });
    return this.complete(run, rec, stored.thread, end, outcome);
  }

  /** The end event, then the plugins that keep records of the run. */
  protected async complete(run: RunInfo, rec: RunRecorder, thread: ThreadRecord, end: RunEnd, outcome: RunOutcome): Promise<RunOutcome> {
    // A thread whose status the run changed is announced just before the run's end.
    if (thread.status !== run.thread.status) this.parts.events.emit("thread:updated", { threadId: run.threadId, thread: publicThread(thread) });
    RunEnding.end(this.parts, run.threadId, this.id, end);
    await rec.drained();
    await this.parts.plugins.notify("onPipelineComplete", outcome, run);
    return outcome;
  }

  /** One storage transaction: the answer, the exchange's turns, the thread, the run off the queue. */
  protected settle(run: RunInfo, result: Settlement): { assistant?: Message; thread: ThreadRecord } {
    const { store, writer, view, spend } = this.parts;
    const message = this.message!;
    const stored = store.transaction(() => {
      const now = writer.clock.now();
      const before = store.thread.get()!;
      // The exchange's turns, also of a failed run (its user turn at least), so the model never loses
      // what the person said; a run that ran again replaces them.
      const turns = view.turnsFor(message.id, result.turns.length ? result.turns : [userTurn(run.content)]);
      store.turns.put(message.id, turns);
      const { output: content, metadata } = result;
      const assistant = content ? writer.addMessage(assistantMessage({ threadId: run.threadId, parentId: message.id, content, model: run.model, metadata, now })) : undefined;
      const thread = writer.updateThread({
        lastActivity: now,
        ...(before.status === "open" ? { status: "active" as const } : {}),
        // A run that began without the model's view of its branch (a new thread, or history injected)
        // starts the conversation the object now holds: a new session.
        ...(run.resident && before.sessionId ? {} : { sessionId: newSessionId() }),
      });
      store.runs.dequeue(this.item.pos);
      store.runs.stored(this.id, result.end);
      this.parts.approvals.forgetRun(this.id);
      return { assistant, thread, turns };
    });
    spend.settled({ runId: run.runId, threadId: run.threadId, at: Date.now(), usd: costUsd(run.model, result.usage) });
    view.extend(message.parentId, message.id, stored.turns);
    if (stored.turns.some((t) => typeof t.message.content !== "string" && t.message.content.some(isCompaction))) {
      store.transaction(() => view.compacted(message.id));
    }
    if (stored.assistant) this.parts.events.emit("chat:message", { threadId: run.threadId, message: stored.assistant });
    return stored;
  }

  /** Ends the run a restart cut short and queues its message again: the next run answers it afresh. */
  protected restart(): void {
    const { store, writer, events } = this.parts;
    const thread = store.thread.get()!;
    const output = this.streamedSoFar();
    const end: RunEnd = { status: "failed", code: "interrupted", message: "The thread restarted during this run; it is answering again", retryable: false };
    const partial = store.transaction(() => {
      const metadata = { runId: this.id, error: "interrupted", restarted: true };
      const kept = output
        ? writer.addMessage(assistantMessage({ threadId: thread.id, parentId: this.item.messageId, content: output, model: thread.model, metadata, now: writer.clock.now() }))
        : undefined;
      store.runs.requeue(this.item.pos);
      store.runs.stored(this.id, end);
      return kept;
    });
    if (partial) events.emit("chat:message", { threadId: thread.id, message: partial });
    RunEnding.end(this.parts, thread.id, this.id, end);
    this.logger.info("run restarted after a restart of the thread", { messageId: this.item.messageId });
  }

  /** The text the run had streamed to its clients (what a restart must not lose). */
  protected streamedSoFar(): string {
    const firstSeq = this.parts.store.runs.firstSeqOf(this.id);
    return firstSeq === null ? "" : this.parts.store.replay.streamedText(this.id, firstSeq);
  }

  protected taskMark(): { taskId?: string } {
    return this.item.taskId ? { taskId: this.item.taskId } : {};
  }
}
