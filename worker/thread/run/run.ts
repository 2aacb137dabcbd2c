// One run: the seed's handleMessage, from pipeline:start through steps 0 to 4 to the model's answer;
// how it ends from there (steps 5 to 8, or a failure) is its RunEnding's (ending.ts). Everything it
// reads and writes is the thread object's own storage; D1 hears of the run afterwards, in one flush.
// The core stores only what the seed calls innate (the answer, sessionId, lastActivity); the rest
// (activity rows, usage) is plugins'.
import { classify, RunError } from "../../invoker/errors";
import { estimateTokens } from "../../invoker/conversation";
import { emptyUsage } from "../../invoker/types";
import type { Logger } from "../../lib/logger";
import type { RunInfo, RunOutcome, StructuredPrompt } from "../../plugins/contract";
import type { InboxItem, MessageRecord } from "../store";
import { publicMessage } from "../store/messages";
import { publicThread } from "../store/thread-row";
import { basePrompt } from "./base-prompt";
import { RunEnding } from "./ending";
import type { RunHold } from "./mcp-tools";
import { callModel } from "./model-call";
import type { RunParts } from "./parts";
import { RunRecorder } from "./recorder";
import type { Phases } from "./phases";
import { partialTurns } from "./records";
import { projectRetrieves } from "./project-knowledge";
import { reserveRequest } from "./spend-reservation";

/** What the system prompt, the tools and the context files may add to a run's input, at most. */

/** How often one message's run starts again by itself after a restart cut it short. */
const MAX_RESTARTS = 1;

export class Run {
  private readonly parts: RunParts;
  private readonly message: MessageRecord | null;
  private readonly ending: RunEnding;
  /** The run's spend reservation, made as it begins (begin()). */
  private reserved: Promise<RunError | null> = Promise.resolve(null);

  constructor(
    parts: RunParts,
    readonly id: string,
    private readonly item: InboxItem,
    /** A person's message's way from its arrival (phases.ts); null for any other input, or one a restart requeued. */
    readonly phases: Phases | null = null,
  ) {
    // Each line of the run names it, and the request that queued it (X-Request-Id).
    const logger = parts.logger.with({ runId: id, ...(item.requestId ? { requestId: item.requestId } : {}) });
    this.parts = { ...parts, logger };
    this.message = parts.store.messages.get(item.messageId);
    this.ending = new RunEnding(this.parts, id, item, this.message);
  }

  get logger(): Logger {
    return this.parts.logger;
  }

  get taskId(): string | null {
    return this.item.taskId;
  }

  /** pipeline:start, recorded with the run: recovery never fails a run no client saw start. */
  announce(): void {
    const { store, events } = this.parts;
    const threadId = store.thread.get()!.id;
    store.transaction(() => {
      store.runs.markRunning(this.item.pos, this.id);
      store.runs.started(this.id, this.item.messageId, events.lastSeq + 1, Date.now(), this.item.queuedSeq);
      events.emit("pipeline:start", { threadId, runId: this.id, messageId: this.item.messageId });
    });
    this.phases?.mark("started");
  }

  /** The pipeline. Rejects only for a fault before step 1 (the queue abandons the run then). */
  async handle(signal: AbortSignal, hold?: RunHold, onModelRequest?: () => void): Promise<RunOutcome> {
    const run = await this.begin(true);
    this.phases?.mark("stepZero");
    const rec = new RunRecorder(this.parts, run);
    const { plugins } = this.parts;
    // A stop or timeout must not wait for a slow hook before the model is called.
    const beforeInvoke = <T>(work: T | Promise<T>) => abortable(work, signal);
    let prompt: StructuredPrompt | undefined;
    try {
      await beforeInvoke(plugins.notify("onPipelineStart", run));
      await beforeInvoke(this.checkSpend());
      // Step 1: plugins hear of the message; they cannot change it.
      await beforeInvoke(plugins.notify("onMessage", run.message, run));
      rec.step({ step: "onMessage" });
      this.phases?.mark("hooks");
      // Steps 2 and 3: the base prompt, then each plugin's transformation of it, in order.
      prompt = await beforeInvoke(plugins.chain("onBeforeInvoke", basePrompt(run.thread, run.content), [run], isPrompt));
      rec.step({ step: "onBeforeInvoke", detail: `system ${prompt.system.length} chars, prompt ${prompt.prompt.length} chars` });
      this.phases?.mark("prompt");
      // Step 4: the model, streamed.
      rec.step({ step: "invoking", detail: run.model });
      onModelRequest?.();
      const onSend = () => this.phases?.mark("request");
      return await this.ending.completed(run, rec, prompt, await callModel(this.parts, run, this.message!, prompt, rec, signal, { hold, onSend }));
    } catch (err) {
      return this.ending.failed(run, rec, err, prompt);
    }
  }

  /**
   * A run that waited for the user's approval when its object restarted: from the point it kept (its
   * turns so far, its prompt), the waiting tool first; the plugins heard its start already.
   */
  async resume(signal: AbortSignal, hold: RunHold): Promise<RunOutcome> {
    const kept = this.parts.approvals.pointOf(this.id);
    if (!kept) throw new RunError("internal", "This run kept no point to go on from", false);
    const run = await this.begin();
    const rec = new RunRecorder(this.parts, run);
    try {
      return await this.ending.completed(run, rec, kept.prompt, await callModel(this.parts, run, this.message!, kept.prompt, rec, signal, { hold, resume: kept.point }));
    } catch (err) {
      return this.ending.failed(run, rec, err, kept.prompt);
    }
  }

  /**
   * The object restarted during this run. With no tool run yet, the run ends and its message is
   * queued again (once); otherwise it fails through the pipeline's failure path, since a tool may have
   * had effects. Its text so far is kept either way.
   */
  async recover(): Promise<void> {
    const record = this.parts.store.runs.get(this.id);
    if (this.message && record && !record.toolRan && this.item.restarts < MAX_RESTARTS) return this.ending.restart();
    const error = new RunError(
      "interrupted",
      record?.toolRan
        ? "The thread restarted during this run, after a tool had run; it was not repeated, since the tool may have had effects. Send the message again to retry."
        : "The thread restarted during this run",
      true,
    );
    try {
      if (!this.message) throw new RunError("internal", "The message of this run is gone", false);
      const run = await this.begin();
      const output = this.ending.streamedSoFar();
      await this.ending.fail(run, new RunRecorder(this.parts, run), error, { output, turns: partialTurns(run.content, output), usage: emptyUsage() });
    } catch (err) {
      this.logger.error("could not fail a lost run cleanly", { error: String(err) });
      this.abandon(error);
    }
  }

  /** The last resort: the run leaves the queue and its clients get pipeline:error (after its start). */
  abandon(error: RunError): void {
    this.ending.abandon(error);
  }

  /** Step 0: the thread as stored, the plugins as configured, and the run they make. */
  private async begin(reserve = false): Promise<RunInfo> {
    const { store, invoker, view, config, stepZero } = this.parts;
    const thread = store.thread.get();
    if (!thread) throw new RunError("internal", "The thread no longer exists", false);
    if (!this.message) throw new RunError("internal", "The message of this run is gone", false);
    const model = await invoker.modelInfo(thread.model);
    const run: RunInfo = {
      threadId: thread.id,
      runId: this.id,
      messageId: this.message.id,
      thread: publicThread(thread),
      ownerId: thread.ownerId,
      model: thread.model,
      contextWindow: config.contextTokenBudget ?? model.contextWindow,
      content: this.message.content,
      message: publicMessage(this.message),
      resident: view.before(this.message.parentId).resident,
      taskId: this.item.taskId ?? undefined,
      startedAt: Date.now(),
    };
    // The spend reservation goes out beside step 0's reads: the run waits on the slower, not on both.
    // (A resumed run reserved as it began; its next request, a tool round's, reserves its own.)
    if (reserve) this.reserved = this.reserve(run);
    await stepZero.ready(thread.ownerId);
    if (projectRetrieves(stepZero.current?.project, run.contextWindow, config.projectWholeShare)) run.projectRetrieves = true;
    return run;
  }

  /**
   * The spend cap again, as the run starts (a queued message, or a task's next iteration, was let in
   * before the spend that passed it). While a cap is set the run reserves its first request's worst
   * case with the user's object, the one judge across the user's threads (each tool round reserves
   * its own: model-call.ts); with none, nothing is asked. The refusal, if any; it never rejects.
   */
  private reserve(run: RunInfo): Promise<RunError | null> {
    const history = () => this.parts.view.before(this.message!.parentId).turns.reduce((n, t) => n + estimateTokens(t.message), 0);
    return reserveRequest(this.parts, run, () => history() + Math.ceil(run.content.length / 4)).then(
      () => null,
      (err: unknown) => classify(err),
    );
  }

  private async checkSpend(): Promise<void> {
    const refusal = await this.reserved;
    if (refusal) throw refusal;
  }
}

const isPrompt = (v: unknown): v is StructuredPrompt =>
  typeof (v as StructuredPrompt)?.system === "string" && typeof (v as StructuredPrompt)?.prompt === "string";

/** `work`, or a RunError (aborted or timeout) as soon as the signal fires, whichever comes first. */
function abortable<T>(work: T | Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(classify(null, signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(classify(null, signal));
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(work).then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
