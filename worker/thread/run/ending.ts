// How a run ends, top to bottom: once the model is done (steps 5 to 8), or when it failed. Each end is
// two moves that recovery can tell apart:
//   settle  one storage transaction: the answer, the turns, the thread's activity, and the run off
//           the queue, marked `stored` with the end event it owes
//   end     the end event (pipeline:complete or pipeline:error, sent nowhere else), then the run is
//           marked `ended`
// A restart between the two finds a stored run and sends its end event; it never runs it again. A
// restart before `settle` leaves a run cut short, which Run.recover answers again or fails.
import type { Message } from "../../../protocol";
import { RunError } from "../../invoker/errors";
import { InvokeFailure } from "../../invoker/invoke";
import { costUsd } from "../../invoker/prices";
import { emptyUsage, isCompaction, type ApiMessage, type InvokeResult, type Usage } from "../../invoker/types";
import type { RunInfo, RunOutcome, StructuredPrompt } from "../../plugins/contract";
import { newSessionId } from "../model-view";
import type { InboxItem, MessageRecord, RunEnd, ThreadRecord } from "../store";
import { commandsOf } from "./commands";
import type { RunParts } from "./parts";
import type { RunRecorder } from "./recorder";
import { assistantMessage, completedEnd, endEvent, failedEnd, userTurn } from "./records";

/** What a failed run had got before it failed. */
export interface Unfinished {
  output: string;
  turns: ApiMessage[];
  usage: Usage;
  prompt?: StructuredPrompt;
}

/** What a run leaves in storage as it settles. */
interface Settlement extends Omit<Unfinished, "prompt"> {
  metadata: Record<string, unknown>;
  end: RunEnd;
}

/** The end event of a run, and its mark as ended (also for an end a restart held back). */
export function sendEnd(parts: Pick<RunParts, "events" | "store">, threadId: string, runId: string, end: RunEnd): void {
  const { event, data } = endEvent(threadId, runId, end);
  parts.events.emit(event, data);
  parts.store.runs.ended(runId);
}

export class RunEnding {
  constructor(
    private readonly parts: RunParts,
    private readonly id: string,
    private readonly item: InboxItem,
    private readonly message: MessageRecord | null,
  ) {}

  /** Steps 5 to 8, once the model is done. */
  async completed(run: RunInfo, rec: RunRecorder, prompt: StructuredPrompt, result: InvokeResult): Promise<RunOutcome> {
    const { plugins } = this.parts;
    await rec.drained();
    // The run's end writes wait for the next turn, so they never share a commit with this turn's
    // frames (a frame leaves once the writes before it are durable: the output gate).
    await nextTurn();
    // Step 5: plugins hear the result; they cannot change it.
    await plugins.notify("onAfterInvoke", result, run);
    const tokens = result.usage.inputTokens + result.usage.outputTokens;
    rec.step({ step: "onAfterInvoke", detail: `${tokens} tokens, ${result.durationMs}ms`, usage: result.usage });
    // Step 4b and the innate writes: the answer, the turns, the thread; the run leaves the queue.
    const { durationMs, stopReason } = result;
    const metadata = { runId: run.runId, usage: result.usage, durationMs, stopReason, ...rec.web(), ...rec.code(), ...rec.documents(), ...this.taskMark() };
    const end = completedEnd([], [], Date.now() - run.startedAt);
    const stored = this.settle(run, { output: result.output, turns: result.turns, usage: result.usage, metadata, end });
    // Steps 6 and 7: commands in the answer, each to the first plugin that takes it.
    const commands = await this.handleCommands(run, result.output);
    // Step 8: the run is complete for its clients; then the plugins that keep records of it
    // (activity, usage, a task's evaluation), as the seed's sendToThread did after handleMessage.
    const done = completedEnd(commands.handled, commands.unhandled, Date.now() - run.startedAt);
    const outcome = rec.outcome({ ...done, result, prompt, assistantMessage: stored.assistant, usage: result.usage });
    return this.complete(run, rec, stored.thread, done, outcome);
  }

  /** A fault on the way (the model's, a stop, a timeout, or ours), with what the model had said. */
  failed(run: RunInfo, rec: RunRecorder, err: unknown, prompt: StructuredPrompt | undefined): Promise<RunOutcome> {
    const failure = err instanceof InvokeFailure ? err : null;
    const error = failure?.error ?? (err instanceof RunError ? err : new RunError("internal", "Internal error", false));
    if (!failure && !(err instanceof RunError)) this.parts.logger.error("pipeline failed", { threadId: run.threadId, error: String(err) });
    return this.fail(run, rec, error, { output: failure?.output ?? "", turns: failure?.turns ?? [], usage: failure?.usage ?? emptyUsage(), prompt });
  }

  /**
   * A failed run: what the model did say is stored (marked with the error) and stays in its view as
   * far as it forms whole turns; plugins hear the outcome; the run ends with pipeline:error.
   */
  async fail(run: RunInfo, rec: RunRecorder, error: RunError, got: Unfinished): Promise<RunOutcome> {
    const durationMs = Date.now() - run.startedAt;
    const marker = error.code === "aborted" ? { aborted: true } : { error: error.code };
    const end = failedEnd(error);
    const metadata = { runId: run.runId, usage: got.usage, durationMs, ...marker, ...rec.web(), ...rec.code(), ...rec.documents(), ...this.taskMark() };
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
    if (thread) {
      sendEnd(this.parts, thread.id, this.id, end);
      // It called no model: whatever it reserved against the spend cap is released.
      this.parts.spend.settled({ runId: this.id, threadId: thread.id, at: Date.now(), usd: 0 });
    }
  }

  /** Ends the run a restart cut short and queues its message again: the next run answers it afresh. */
  restart(): void {
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
    sendEnd(this.parts, thread.id, this.id, end);
    this.parts.logger.info("run restarted after a restart of the thread", { messageId: this.item.messageId });
  }

  /** The text the run had streamed to its clients (what a restart must not lose). */
  streamedSoFar(): string {
    const firstSeq = this.parts.store.runs.firstSeqOf(this.id);
    return firstSeq === null ? "" : this.parts.store.replay.streamedText(this.id, firstSeq);
  }

  /** One storage transaction: the answer, the exchange's turns, the thread, the run off the queue. */
  private settle(run: RunInfo, result: Settlement): { assistant?: Message; thread: ThreadRecord } {
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

  /**
   * Each command to the first plugin that takes it. The stored end follows each one, so a run whose
   * end event a restart held back reports the commands that were handled.
   */
  private async handleCommands(run: RunInfo, output: string): Promise<{ handled: string[]; unhandled: string[] }> {
    const { plugins, store } = this.parts;
    const handled: string[] = [];
    const unhandled: string[] = [];
    for (const command of commandsOf(run.message, output)) {
      if (await plugins.firstTrue("onCommand", command, run)) handled.push(command.name);
      else {
        unhandled.push(command.name);
        this.parts.logger.warn("command not handled", { threadId: run.threadId, command: command.name });
      }
      store.runs.stored(this.id, completedEnd(handled, unhandled, Date.now() - run.startedAt));
    }
    return { handled, unhandled };
  }

  /** The end event, then the plugins that keep records of the run. */
  private async complete(run: RunInfo, rec: RunRecorder, thread: ThreadRecord, end: RunEnd, outcome: RunOutcome): Promise<RunOutcome> {
    // A thread whose status the run changed is announced just before the run's end.
    if (thread.status !== run.thread.status) this.parts.events.threadUpdated(thread);
    sendEnd(this.parts, run.threadId, this.id, end);
    await rec.drained();
    await this.parts.plugins.notify("onPipelineComplete", outcome, run);
    return outcome;
  }

  private taskMark(): { taskId?: string } {
    return this.item.taskId ? { taskId: this.item.taskId } : {};
  }
}

const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
