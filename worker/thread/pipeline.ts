// handleMessage: the seed's pipeline, steps 0 to 8, around one streamed model call. The core
// persists only what the seed calls innate (the assistant's text, sessionId, lastActivity), in one
// D1 batch at the end; everything else happens in plugins, through the hooks.
import type { Db } from "../db/client";
import { toThread, type Message, type Thread } from "../db/shapes";
import { findThread } from "../db/threads";
import { InvokeFailure, type Invoker } from "../invoker/invoke";
import { classify, RunError } from "../invoker/errors";
import { emptyUsage, type InvokeResult, type StreamEvent } from "../invoker/types";
import type { Command, Logger, RunInfo, RunOutcome, StructuredPrompt } from "../plugins/contract";
import { syncPluginConfigs, type PluginHost } from "../plugins/registry";
import { runChain, runFirstTrue, runNotify } from "../plugins/runners";
import type { MonotonicClock } from "../lib/ids";
import { DeltaCoalescer } from "./broadcaster";
import { announceStatus, assistantMetadata, persistRun } from "./persist-run";
import { parseCommands } from "./commands";
import type { ResidentConversation } from "./resident-conversation";

export interface PipelineDeps {
  db: Db;
  plugins: PluginHost;
  invoker: Invoker;
  conversation: ResidentConversation;
  logger: Logger;
  clock: MonotonicClock;
  broadcast(event: string, data: Record<string, unknown>): void;
  tokenBudget: number;
  streamFlushMs: number;
}

export interface RunRequest {
  threadId: string;
  runId: string;
  message: Message;
  taskId?: string;
  signal: AbortSignal;
}

const isPrompt = (v: unknown): v is StructuredPrompt =>
  typeof (v as StructuredPrompt)?.system === "string" && typeof (v as StructuredPrompt)?.prompt === "string";

/** Step 0: the thread as stored now, the plugins as configured now, and the run they make. */
async function beginRun(deps: PipelineDeps, req: Omit<RunRequest, "signal">): Promise<RunInfo> {
  const [row, configs] = await Promise.all([findThread(deps.db, req.threadId), syncPluginConfigs(deps.db)]);
  if (!row) throw new RunError("internal", "The thread no longer exists", false);
  deps.plugins.apply(configs);
  await deps.plugins.start();
  return {
    threadId: req.threadId,
    runId: req.runId,
    messageId: req.message.id,
    thread: toThread(row),
    ownerId: row.ownerId,
    model: row.model,
    content: req.message.content,
    message: req.message,
    resident: deps.conversation.beginRun(row.sessionId),
    taskId: req.taskId,
    startedAt: Date.now(),
  };
}

/** The core's broadcast for one run: ids added, buffered deltas flushed first so order holds. */
function runBroadcaster(deps: PipelineDeps, threadId: string, runId: string) {
  const coalescer = new DeltaCoalescer(deps.streamFlushMs, (type, delta) =>
    deps.broadcast("pipeline:stream", { threadId, runId, type, delta }),
  );
  const broadcast = (event: string, data: Record<string, unknown>) => {
    coalescer.flush();
    deps.broadcast(event, { threadId, runId, ...data });
  };
  return { coalescer, broadcast };
}

export async function handleMessage(deps: PipelineDeps, req: RunRequest): Promise<RunOutcome> {
  const { plugins, logger } = deps;
  const { threadId, runId } = req;
  const run = await beginRun(deps, req);
  const startedAt = run.startedAt;
  const { coalescer, broadcast } = runBroadcaster(deps, threadId, runId);

  broadcast("pipeline:start", { messageId: req.message.id });

  let result: InvokeResult | undefined;
  let failure: RunError | undefined;
  let output = "";
  let usage = emptyUsage();
  const pendingHooks: Promise<void>[] = [];
  // A stop or timeout must not wait for a slow hook before the model is called.
  const beforeInvoke = <T>(work: T | Promise<T>) => abortable(work, req.signal);
  try {
    await beforeInvoke(runNotify(plugins.entries("onPipelineStart"), "onPipelineStart", [run], logger));

    // Step 1: plugins hear of the message; they cannot change it.
    await beforeInvoke(runNotify(plugins.entries("onMessage"), "onMessage", [req.message, run], logger));
    broadcast("pipeline:step", { step: "onMessage" });

    // Steps 2 and 3: the base prompt, then each plugin's transformation of it, in order.
    let prompt: StructuredPrompt = { system: "", prompt: req.message.content };
    prompt = await beforeInvoke(runChain(plugins.entries("onBeforeInvoke"), "onBeforeInvoke", prompt, [run], logger, isPrompt));
    broadcast("pipeline:step", {
      step: "onBeforeInvoke",
      detail: `system ${prompt.system.length} chars, prompt ${prompt.prompt.length} chars`,
    });

    // Step 4: the model, streamed.
    broadcast("pipeline:step", { step: "invoking", detail: run.model });
    const onEvent = (e: StreamEvent) => {
      const hooked = runNotify(plugins.entries("onStreamEvent"), "onStreamEvent", [e, run], logger);
      if (hooked) pendingHooks.push(hooked);
      if (e.type === "text" || e.type === "thinking") coalescer.push(e.type, e.delta);
      else broadcast("pipeline:stream", { ...e });
    };
    result = await invokeWithinBudget(deps, run, prompt, onEvent, req.signal);
    coalescer.flush();
    output = result.output;
    usage = result.usage;
    await Promise.all(pendingHooks);

    // Step 4b: the conversation this run extended, named by its sessionId.
    const sessionId = deps.conversation.commit(result.turns);

    // Step 5: plugins hear the result; they cannot change it.
    await runNotify(plugins.entries("onAfterInvoke"), "onAfterInvoke", [result, run], logger);
    const tokens = result.usage.inputTokens + result.usage.outputTokens;
    broadcast("pipeline:step", { step: "onAfterInvoke", detail: `${tokens} tokens, ${result.durationMs}ms`, usage: result.usage });

    const { assistant, thread } = await persistRun(deps, run, output, { sessionId, metadata: assistantMetadata(run, result) });
    if (assistant) broadcast("chat:message", { message: assistant });

    // Steps 6 and 7: commands in the answer, each to the first plugin that takes it.
    const commandsHandled: string[] = [];
    const commandsUnhandled: string[] = [];
    for (const command of commandsOf(req.message, output)) {
      const by = await runFirstTrue(plugins.entries("onCommand"), "onCommand", [command, run], logger);
      if (by) commandsHandled.push(command.name);
      else {
        commandsUnhandled.push(command.name);
        logger.warn("command not handled", { threadId, command: command.name });
      }
    }

    // Step 8.
    const durationMs = Date.now() - startedAt;
    const outcome: RunOutcome = { status: "completed", durationMs, result, assistantMessage: assistant, commandsHandled, usage };
    await runNotify(plugins.entries("onPipelineComplete"), "onPipelineComplete", [outcome, run], logger);
    announceStatus(deps, run, thread);
    broadcast("pipeline:complete", { commandsHandled, commandsUnhandled, durationMs });
    return outcome;
  } catch (err) {
    coalescer.flush();
    await Promise.allSettled(pendingHooks);
    let sessionId: string | undefined;
    if (err instanceof InvokeFailure) {
      failure = err.error;
      output = err.output;
      usage = err.usage;
      // What the model did say stays in its view too, as far as it forms whole turns.
      if (output) sessionId = deps.conversation.commit(err.turns);
    } else {
      failure = err instanceof RunError ? err : new RunError("internal", "Internal error", false);
      if (!(err instanceof RunError)) logger.error("pipeline failed", { threadId, runId, error: String(err) });
    }
    return failRun(deps, run, failure, { output, usage, sessionId }, broadcast);
  }
}

/**
 * The commands of a run: those a person typed in their message, then the model's. A command the
 * model repeats from the person's message is taken once.
 */
function commandsOf(message: Message, output: string): Command[] {
  const typed = message.role === "user" && message.source === "web" ? parseCommands(message.content) : [];
  const seen = new Set(typed.map((c) => c.raw));
  return [...typed, ...parseCommands(output).filter((c) => !seen.has(c.raw))];
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

/** A "prompt is too long" answer trims the conversation to a quarter and tries once more. */
async function invokeWithinBudget(
  deps: PipelineDeps,
  run: RunInfo,
  prompt: StructuredPrompt,
  onEvent: (e: StreamEvent) => void,
  signal: AbortSignal,
): Promise<InvokeResult> {
  const call = (budget: number) => {
    const history = deps.conversation.window(budget);
    if (history.dropped) deps.logger.info("conversation trimmed to budget", { threadId: run.threadId, droppedExchanges: history.dropped });
    return deps.invoker.invoke({
      model: run.model,
      system: prompt.system,
      prompt: prompt.prompt,
      history: history.messages,
      tools: deps.plugins.tools(),
      runTool: (name, input, toolUseId) =>
        deps.plugins.runTool(name, input, { threadId: run.threadId, taskId: run.taskId, ownerId: run.ownerId, toolUseId, signal }),
      onEvent,
      signal,
    });
  };
  try {
    return await call(deps.tokenBudget);
  } catch (err) {
    if (!(err instanceof InvokeFailure) || !err.error.promptTooLong || err.output) throw err;
    return call(Math.floor(deps.tokenBudget / 4));
  }
}

/**
 * A run that an earlier instance of the object started and never finished (it was evicted or
 * restarted): it fails as `interrupted` through the same path as any failure, with the text that
 * had reached the clients kept.
 */
export async function failLostRun(deps: PipelineDeps, req: Omit<RunRequest, "signal">, streamedText: string): Promise<RunOutcome> {
  const run = await beginRun(deps, req);
  const { broadcast } = runBroadcaster(deps, req.threadId, req.runId);
  const error = new RunError("interrupted", "The thread restarted during this run", true);
  return failRun(deps, run, error, { output: streamedText, usage: emptyUsage() }, broadcast);
}

async function failRun(
  deps: PipelineDeps,
  run: RunInfo,
  error: RunError,
  { output, usage, sessionId }: { output: string; usage: InvokeResult["usage"]; sessionId?: string },
  broadcast: (event: string, data: Record<string, unknown>) => void,
): Promise<RunOutcome> {
  const durationMs = Date.now() - run.startedAt;
  const marker = error.code === "aborted" ? { aborted: true } : { error: error.code };
  let assistant: Message | undefined;
  let thread: Thread | undefined;
  try {
    ({ assistant, thread } = await persistRun(deps, run, output, { sessionId, metadata: { runId: run.runId, usage, durationMs, ...marker } }));
    if (assistant) broadcast("chat:message", { message: assistant });
  } catch (err) {
    deps.logger.error("could not store a failed run's text", { threadId: run.threadId, error: String(err) });
  }
  const outcome: RunOutcome = {
    status: "failed",
    durationMs,
    error: { code: error.code, message: error.message, retryable: error.retryable },
    assistantMessage: assistant,
    commandsHandled: [],
    usage,
  };
  await runNotify(deps.plugins.entries("onPipelineComplete"), "onPipelineComplete", [outcome, run], deps.logger);
  announceStatus(deps, run, thread);
  broadcast("pipeline:error", { code: error.code, message: error.message, retryable: error.retryable });
  return outcome;
}
