// One run: the seed's handleMessage, steps 0 to 8 around one streamed model call, from pipeline:start
// to its one end event (how it ends, and what recovery needs of that, is RunEnding's). Everything it
// reads and writes is the thread object's own storage; D1 hears of the run afterwards, in one flush.
// The core stores only what the seed calls innate (the answer, sessionId, lastActivity); the rest
// (activity rows, usage) is plugins'.
import { classify, RunError } from "../invoker/errors";
import { InvokeFailure } from "../invoker/invoke";
import { estimateTokens } from "../invoker/conversation";
import { costUsd } from "../invoker/prices";
import { emptyUsage, type InvokeResult } from "../invoker/types";
import type { RunHold } from "./mcp-tools";
import type { RunInfo, RunOutcome, StructuredPrompt } from "../plugins/contract";
import { basePrompt } from "./base-prompt";
import { commandsOf } from "./commands";
import { callModel } from "./model-call";
import { RunEnding } from "./run-ending";
import type { RunParts } from "./run-parts";
import { RunRecorder } from "./run-recorder";
import { completedEnd, partialTurns } from "./run-records";
import { publicMessage } from "./store/messages";
import { publicThread } from "./store/thread-row";

/** What the system prompt, the tools and the context files may add to a run's input, at most. */
const PROMPT_ALLOWANCE_TOKENS = 8_000;

/** How often one message's run starts again by itself after a restart cut it short. */
const MAX_RESTARTS = 1;

export class Run extends RunEnding {
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
  }

  /** The pipeline. Rejects only for a fault before step 1 (the queue abandons the run then). */
  async handle(signal: AbortSignal, hold?: RunHold, onModelRequest?: () => void): Promise<RunOutcome> {
    const run = await this.begin();
    const rec = new RunRecorder(this.parts, run);
    const { plugins } = this.parts;
    // A stop or timeout must not wait for a slow hook before the model is called.
    const beforeInvoke = <T>(work: T | Promise<T>) => abortable(work, signal);
    let prompt: StructuredPrompt | undefined;
    try {
      await beforeInvoke(plugins.notify("onPipelineStart", run));
      await beforeInvoke(this.checkSpend(run));
      // Step 1: plugins hear of the message; they cannot change it.
      await beforeInvoke(plugins.notify("onMessage", run.message, run));
      rec.step({ step: "onMessage" });
      // Steps 2 and 3: the base prompt, then each plugin's transformation of it, in order.
      prompt = await beforeInvoke(plugins.chain("onBeforeInvoke", basePrompt(run.thread, run.content), [run], isPrompt));
      rec.step({ step: "onBeforeInvoke", detail: `system ${prompt.system.length} chars, prompt ${prompt.prompt.length} chars` });
      // Step 4: the model, streamed.
      rec.step({ step: "invoking", detail: run.model });
      onModelRequest?.();
      return await this.finish(run, rec, prompt, await callModel(this.parts, run, this.message!, prompt, rec, signal, { hold }));
    } catch (err) {
      return this.failWith(run, rec, err, prompt);
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
      return await this.finish(run, rec, kept.prompt, await callModel(this.parts, run, this.message!, kept.prompt, rec, signal, { hold, resume: kept.point }));
    } catch (err) {
      return this.failWith(run, rec, err, kept.prompt);
    }
  }

  /** Steps 5 to 8, once the model is done. */
  private async finish(run: RunInfo, rec: RunRecorder, prompt: StructuredPrompt, result: InvokeResult): Promise<RunOutcome> {
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
    const metadata = { runId: run.runId, usage: result.usage, durationMs, stopReason, ...rec.web(), ...this.taskMark() };
    const end = completedEnd([], [], Date.now() - run.startedAt);
    const stored = this.settle(run, { output: result.output, turns: result.turns, usage: result.usage, metadata, end });
    // Steps 6 and 7: commands in the answer, each to the first plugin that takes it.
    const commands = await this.handleCommands(run, result.output);
    // Step 8: the run is complete for its clients; then the plugins that keep records of it
    // (activity, usage, a task's evaluation), as the seed's sendToThread did after handleMessage.
    const done = completedEnd(commands.handled, commands.unhandled, Date.now() - run.startedAt);
    const outcome = rec.outcome({ ...done, result, prompt, assistantMessage: stored.assistant, usage: result.usage });
    return await this.complete(run, rec, stored.thread, done, outcome);
  }

  private failWith(run: RunInfo, rec: RunRecorder, err: unknown, prompt: StructuredPrompt | undefined): Promise<RunOutcome> {
    const failure = err instanceof InvokeFailure ? err : null;
    const error = failure?.error ?? (err instanceof RunError ? err : new RunError("internal", "Internal error", false));
    if (!failure && !(err instanceof RunError)) this.logger.error("pipeline failed", { threadId: run.threadId, error: String(err) });
    const got = { output: failure?.output ?? "", turns: failure?.turns ?? [], usage: failure?.usage ?? emptyUsage(), prompt };
    return this.fail(run, rec, error, got);
  }

  /**
   * The object restarted during this run. With no tool run yet, the run ends and its message is
   * queued again (once); otherwise it fails through the pipeline's failure path, since a tool may have
   * had effects. Its text so far is kept either way.
   */
  async recover(): Promise<void> {
    const record = this.parts.store.runs.get(this.id);
    if (this.message && record && !record.toolRan && this.item.restarts < MAX_RESTARTS) return this.restart();
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
      const output = this.streamedSoFar();
      await this.fail(run, new RunRecorder(this.parts, run), error, { output, turns: partialTurns(run.content, output), usage: emptyUsage() });
    } catch (err) {
      this.logger.error("could not fail a lost run cleanly", { error: String(err) });
      this.abandon(error);
    }
  }

  // --- the pipeline's parts ------------------------------------------------------------------

  /** Step 0's inputs (from D1 only when none recent enough are held), and the plugins they configure. */
  static async stepZero(parts: Pick<RunParts, "stepZero" | "plugins">, ownerId: string): Promise<void> {
    parts.plugins.apply((await parts.stepZero.forRun(ownerId)).configs);
    await parts.plugins.start();
  }

  /** Step 0: the thread as stored, the plugins as configured, and the run they make. */
  private async begin(): Promise<RunInfo> {
    const { store, invoker, view, config } = this.parts;
    const thread = store.thread.get();
    if (!thread) throw new RunError("internal", "The thread no longer exists", false);
    if (!this.message) throw new RunError("internal", "The message of this run is gone", false);
    await Run.stepZero(this.parts, thread.ownerId);
    const model = await invoker.modelInfo(thread.model);
    return {
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
  }

  /**
   * The spend cap again, as the run starts (a queued message, or a task's next iteration, was let in
   * before the spend that passed it). Near the cap the run reserves its worst case with the user's
   * object; far from it, nothing is asked.
   */
  private async checkSpend(run: RunInfo): Promise<void> {
    const refusal = await this.parts.spend.reserve(run.ownerId, { runId: run.runId, threadId: run.threadId }, () => this.worstCost(run));
    if (refusal) throw new RunError("rate_limited", refusal.message, refusal.code !== "rate_limited");
  }

  /** The most this run can cost: the history it sends, its prompt, and the longest answer allowed. */
  private async worstCost(run: RunInfo): Promise<number> {
    const { view, invoker, config } = this.parts;
    const model = await invoker.modelInfo(run.model);
    const history = view.before(this.message!.parentId).turns.reduce((n, t) => n + estimateTokens(t.message), 0);
    const inputTokens = Math.min(run.contextWindow, history + Math.ceil(run.content.length / 4) + PROMPT_ALLOWANCE_TOKENS);
    return costUsd(run.model, { ...emptyUsage(), inputTokens, outputTokens: Math.min(config.maxOutputTokens, model.maxOutputTokens) });
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
        this.logger.warn("command not handled", { threadId: run.threadId, command: command.name });
      }
      store.runs.stored(this.id, completedEnd(handled, unhandled, Date.now() - run.startedAt));
    }
    return { handled, unhandled };
  }

}

const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

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
