// handleMessage: the seed's pipeline, steps 0 to 8, around one streamed model call. Everything it
// reads and writes is the thread object's own storage; D1 hears of the run afterwards, in one flush.
// The core stores only what the seed calls innate (the answer, sessionId, lastActivity); the rest
// (activity rows, usage) is plugins'.
import type { PipelineStep, StreamEvent } from "../../protocol";
import type { Config } from "../env";
import { classify, RunError } from "../invoker/errors";
import { InvokeFailure, type Invoker } from "../invoker/invoke";
import { emptyUsage, type InvokeResult, type Usage } from "../invoker/types";
import type { Logger } from "../lib/logger";
import type { Command, RunInfo, RunOutcome, StepInfo, StructuredPrompt } from "../plugins/contract";
import type { PluginHost } from "../plugins/host";
import { DeltaCoalescer, type Broadcaster } from "./broadcaster";
import { basePrompt } from "./base-prompt";
import type { Calibration } from "./context-window";
import { callModel } from "./model-call";
import { parseCommands } from "./commands";
import type { FileBlocks } from "./file-blocks";
import type { ModelView } from "./model-view";
import { endRun, settleRun } from "./run-end";
import type { SpendGuard } from "./spend";
import type { StepZero } from "./step-zero";
import type { InboxItem, RoomStore } from "./store";
import type { MessageRecord } from "./store/messages";
import { publicMessage } from "./store/messages";
import { publicThread } from "./store/thread-row";
import type { ThreadWriter } from "./writer";
import { webActivityOf } from "./web-activity";

export interface PipelineDeps {
  store: RoomStore;
  calibration: Calibration;
  files: FileBlocks;
  writer: ThreadWriter;
  plugins: PluginHost;
  invoker: Invoker;
  view: ModelView;
  stepZero: StepZero;
  spend: SpendGuard;
  events: Broadcaster;
  logger: Logger;
  config: Config;
}

export interface RunRequest {
  runId: string;
  item: InboxItem;
  message: MessageRecord;
  signal: AbortSignal;
  /** Called just before the model is called (the run queue meters what came before it). */
  onModelRequest?(): void;
}

const isPrompt = (v: unknown): v is StructuredPrompt =>
  typeof (v as StructuredPrompt)?.system === "string" && typeof (v as StructuredPrompt)?.prompt === "string";

/** Step 0: the thread as stored, the plugins as configured, and the run they make. */
export async function beginRun(deps: PipelineDeps, req: Omit<RunRequest, "signal">): Promise<RunInfo> {
  const thread = deps.store.thread.get();
  if (!thread) throw new RunError("internal", "The thread no longer exists", false);
  const inputs = await deps.stepZero.forRun(thread.ownerId);
  deps.plugins.apply(inputs.configs);
  await deps.plugins.start();
  const model = await deps.invoker.modelInfo(thread.model);
  return {
    threadId: thread.id,
    runId: req.runId,
    messageId: req.message.id,
    thread: publicThread(thread),
    ownerId: thread.ownerId,
    model: thread.model,
    contextWindow: deps.config.contextTokenBudget ?? model.contextWindow,
    content: req.message.content,
    message: publicMessage(req.message),
    resident: deps.view.before(req.message.parentId).resident,
    taskId: req.item.taskId ?? undefined,
    startedAt: Date.now(),
  };
}

/** The run's own record of what happened, which handleMessage returns (the seed's return value). */
class RunRecorder {
  readonly steps: PipelineStep[] = [];
  readonly streamEvents: StreamEvent[] = [];
  readonly coalescer: DeltaCoalescer;
  /** Stream and step hooks still running (an async one puts off the plugins after it in line). */
  private readonly hooks: Promise<void>[] = [];

  constructor(
    private readonly deps: PipelineDeps,
    readonly run: RunInfo,
  ) {
    const { threadId, runId } = run;
    this.coalescer = new DeltaCoalescer(deps.config.streamFlushMs, (type, delta) =>
      deps.events.emit("pipeline:stream", { threadId, runId, type, delta }),
    );
  }

  /** A pipeline step: the event, then the plugins that follow steps (activity). */
  step(info: StepInfo): void {
    this.coalescer.flush();
    this.steps.push(info.step);
    this.deps.events.emit("pipeline:step", { threadId: this.run.threadId, runId: this.run.runId, ...info });
    this.track(this.deps.plugins.notify("onPipelineStep", info, this.run));
  }

  /**
   * Every plugin has heard every stream event and step so far: onAfterInvoke and onPipelineComplete
   * may follow (the activity plugin saves its rows in the latter). Notify never rejects.
   */
  async heard(): Promise<void> {
    await Promise.all(this.hooks);
  }

  private track(hooked: void | Promise<void>): void {
    if (hooked) this.hooks.push(hooked);
  }

  stream(e: StreamEvent): void {
    this.track(this.deps.plugins.notify("onStreamEvent", e, this.run));
    const last = this.streamEvents.at(-1);
    if ((e.type === "text" || e.type === "thinking") && last?.type === e.type) last.delta += e.delta;
    else this.streamEvents.push({ ...e });
    if (e.type === "text" || e.type === "thinking") this.coalescer.push(e.type, e.delta);
    else {
      this.coalescer.flush();
      if (e.type === "tool_call") this.deps.store.runs.toolRan(this.run.runId);
      this.deps.events.emit("pipeline:stream", { threadId: this.run.threadId, runId: this.run.runId, ...e });
    }
  }

  outcome(fields: Omit<RunOutcome, "steps" | "streamEvents">): RunOutcome {
    return { ...fields, steps: this.steps, streamEvents: this.streamEvents };
  }
}

export async function handleMessage(deps: PipelineDeps, req: RunRequest): Promise<RunOutcome> {
  const { plugins } = deps;
  const run = await beginRun(deps, req);
  const rec = new RunRecorder(deps, run);
  let prompt: StructuredPrompt | undefined;
  // A stop or timeout must not wait for a slow hook before the model is called.
  const beforeInvoke = <T>(work: T | Promise<T>) => abortable(work, req.signal);
  try {
    await beforeInvoke(plugins.notify("onPipelineStart", run));
    // The spend cap again, as the run starts: a queued message, or a task's next iteration, was let in
    // before the spend that passed the cap (no D1 here unless the user is near the cap).
    const overCap = await beforeInvoke(deps.spend.check(run.ownerId));
    if (overCap) throw new RunError("rate_limited", overCap.message, false);

    // Step 1: plugins hear of the message; they cannot change it.
    await beforeInvoke(plugins.notify("onMessage", run.message, run));
    rec.step({ step: "onMessage" });

    // Steps 2 and 3: the base prompt, then each plugin's transformation of it, in order.
    prompt = await beforeInvoke(plugins.chain("onBeforeInvoke", basePrompt(run.thread, run.content), [run], isPrompt));
    rec.step({ step: "onBeforeInvoke", detail: `system ${prompt.system.length} chars, prompt ${prompt.prompt.length} chars` });

    // Step 4: the model, streamed.
    rec.step({ step: "invoking", detail: run.model });
    req.onModelRequest?.();
    const on = { event: (e: StreamEvent) => rec.stream(e), compacted: () => rec.step({ step: "compacted" }) };
    const result = await callModel(deps, req.message, run, prompt, on, req.signal);
    rec.coalescer.flush();
    await rec.heard();

    // Step 5: plugins hear the result; they cannot change it.
    await plugins.notify("onAfterInvoke", result, run);
    const tokens = result.usage.inputTokens + result.usage.outputTokens;
    rec.step({ step: "onAfterInvoke", detail: `${tokens} tokens, ${result.durationMs}ms`, usage: result.usage });

    // Step 4b and the innate writes: the answer, the turns, the thread; the run leaves the queue.
    const stored = settleRun(deps, run, req, {
      output: result.output,
      turns: result.turns,
      usage: result.usage,
      metadata: {
        runId: run.runId,
        usage: result.usage,
        durationMs: result.durationMs,
        stopReason: result.stopReason,
        ...withWeb(rec),
        ...(run.taskId ? { taskId: run.taskId } : {}),
      },
      end: { status: "completed", commandsHandled: [], commandsUnhandled: [], durationMs: Date.now() - run.startedAt },
    });

    // Steps 6 and 7: commands in the answer, each to the first plugin that takes it.
    const commandsHandled: string[] = [];
    const commandsUnhandled: string[] = [];
    for (const command of commandsOf(run, result.output)) {
      if (await plugins.firstTrue("onCommand", command, run)) commandsHandled.push(command.name);
      else {
        commandsUnhandled.push(command.name);
        deps.logger.warn("command not handled", { threadId: run.threadId, command: command.name });
      }
    }

    // Step 8: the run is complete for its clients; then the plugins that keep records of it (activity,
    // usage, a task's evaluation), as the seed's sendToThread did after handleMessage returned.
    const durationMs = Date.now() - run.startedAt;
    const outcome = rec.outcome({ status: "completed", durationMs, result, prompt, assistantMessage: stored.assistant, commandsHandled, commandsUnhandled, usage: result.usage });
    endRun(deps, run, stored.thread, { status: "completed", commandsHandled, commandsUnhandled, durationMs });
    await rec.heard();
    await plugins.notify("onPipelineComplete", outcome, run);
    return outcome;
  } catch (err) {
    rec.coalescer.flush();
    await rec.heard();
    const failure = err instanceof InvokeFailure ? err : null;
    const error = failure?.error ?? (err instanceof RunError ? err : new RunError("internal", "Internal error", false));
    if (!failure && !(err instanceof RunError)) deps.logger.error("pipeline failed", { threadId: run.threadId, runId: run.runId, error: String(err) });
    return failRun(deps, run, req, error, { output: failure?.output ?? "", turns: failure?.turns ?? [], usage: failure?.usage ?? emptyUsage(), prompt }, rec);
  }
}

/**
 * A failed run: what the model did say is stored (marked with the error) and stays in its view as far
 * as it forms whole turns; plugins hear the outcome; the run ends with pipeline:error.
 */
export async function failRun(
  deps: PipelineDeps,
  run: RunInfo,
  req: Omit<RunRequest, "signal">,
  error: RunError,
  got: { output: string; turns: InvokeResult["turns"]; usage: Usage; prompt?: StructuredPrompt },
  rec = new RunRecorder(deps, run),
): Promise<RunOutcome> {
  const durationMs = Date.now() - run.startedAt;
  const marker = error.code === "aborted" ? { aborted: true } : { error: error.code };
  const end = { status: "failed" as const, code: error.code, message: error.message, retryable: error.retryable };
  const stored = settleRun(deps, run, req, {
    output: got.output,
    turns: got.turns,
    usage: got.usage,
    metadata: { runId: run.runId, usage: got.usage, durationMs, ...marker, ...withWeb(rec), ...(run.taskId ? { taskId: run.taskId } : {}) },
    end,
  });
  const outcome = rec.outcome({
    status: "failed",
    durationMs,
    error: { code: error.code, message: error.message, retryable: error.retryable },
    prompt: got.prompt,
    assistantMessage: stored.assistant,
    commandsHandled: [],
    commandsUnhandled: [],
    usage: got.usage,
  });
  endRun(deps, run, stored.thread, end);
  await rec.heard();
  await deps.plugins.notify("onPipelineComplete", outcome, run);
  return outcome;
}

const withWeb = (rec: RunRecorder) => {
  const web = webActivityOf(rec.streamEvents);
  return web ? { web } : {};
};

/**
 * The commands of a run: those a person typed in their message, then the model's. A command the
 * model repeats from the person's message is taken once.
 */
function commandsOf(run: RunInfo, output: string): Command[] {
  const m = run.message;
  const typed = m.role === "user" && m.source === "web" ? parseCommands(m.content) : [];
  // A model that echoes a typed command, however often and in whatever words, does not repeat it.
  const typedNames = new Set(typed.map((c) => c.name));
  const seen = new Set<string>();
  const own = parseCommands(output).filter((c) => !typedNames.has(c.name) && !seen.has(c.raw) && seen.add(c.raw));
  return [...typed, ...own];
}

/** `work`, or a RunError (aborted or timeout) as soon as the signal fires, whichever comes first. */
function abortable<T>(work: T | Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(classify(null, signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(classify(null, signal));
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(work).then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
