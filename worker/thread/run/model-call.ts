// Step 4: the model call of a run, fitted to the model. The request follows the model's catalog entry
// (thinking, max_tokens, compaction); the history is what fits its window; a "prompt is too long"
// answer is learned from and the call tried again, smaller, up to three times. A run never fails
// while its newest message alone fits.
import { codeOnly, codeRefBlock, refBlock } from "../../invoker/attachment-refs";
import { RunError } from "../../invoker/errors";
import { InvokeFailure, type InvokeRequest } from "../../invoker/invoke";
import { thinkingFor } from "../../invoker/request";
import type { ApiContent, ApiMessage, InvokeResult, ModelTool, ResumePoint, ToolRun } from "../../invoker/types";
import { approvedFirst } from "../approvals";
import { callOffered, definitions, offeredTools, type RunHold } from "./mcp-tools";
import type { RunInfo, StructuredPrompt } from "../../plugins/contract";
import { threadSection } from "./base-prompt";
import { fitHistory, fixedTokens, parseTooLong, sinceCompaction } from "./context-window";
import type { RunParts } from "./parts";
import type { RunRecorder } from "./recorder";
import type { MessageRecord } from "../store/messages";
import { messagesTokens, reserveRequest } from "./spend-reservation";
import { CodeOutputs } from "./code-output";
import { isCodeTool } from "../../../protocol";
import { PROJECT_SEARCH_TOOL, projectSearchTool, retrieve, searchTool } from "./project-knowledge";

const RETRIES = 3;
/** Compaction is asked for once the prompt passes this share of the window. */
const COMPACT_AT = 0.8;

/**
 * The thread's project's images and PDFs, as references (its documents' text is in the system prompt),
 * and where the run runs code, its other files for the code's container. A project the run retrieves
 * from sends no PDF whole: its passages come instead.
 */
function projectBlocks(deps: RunParts, code: boolean, retrieves: boolean): ApiContent[] {
  const files = deps.stepZero.current?.project?.files ?? [];
  const whole = (f: { mediaType: string }) => f.mediaType.startsWith("image/") || (f.mediaType === "application/pdf" && !retrieves);
  return files.flatMap((f) => (whole(f) ? [refBlock(f)] : code || codeOnly(f) ? [codeRefBlock(f)] : []));
}

/**
 * The request's first user turn opened by the project's files: the same bytes at the same place in
 * every request of the thread, so they stay in the cached prefix; never stored with the turn.
 */
function opening(messages: ApiMessage[], blocks: ApiContent[]): ApiMessage[] {
  const [first, ...rest] = messages;
  if (!blocks.length || !first || first.role !== "user") return messages;
  const content = typeof first.content === "string" ? [{ type: "text" as const, text: first.content }] : first.content;
  return [{ ...first, content: [...blocks, ...content] }, ...rest];
}

/** A plugin's tool; one that asks (schedule__create) waits for the user's approval first, as an MCP tool that asks does. */
async function callPluginTool(
  deps: RunParts,
  run: RunInfo,
  name: string,
  input: unknown,
  toolUseId: string,
  keep: () => { point: ResumePoint; prompt: StructuredPrompt },
  signal: AbortSignal,
  hold?: RunHold,
): Promise<ToolRun> {
  if (deps.plugins.asks(name)) {
    const refused = await approvedFirst(deps, { runId: run.runId, toolUseId, toolName: name, input }, keep, signal, hold);
    if (refused) return refused;
  }
  return deps.plugins.runTool(name, input, { threadId: run.threadId, runId: run.runId, messageId: run.messageId, taskId: run.taskId, ownerId: run.ownerId, toolUseId, signal });
}

/** How a run's model call goes: its hold on the run's timeout, and where it goes on from (a restart while a tool waited). */
export interface CallOptions {
  hold?: RunHold;
  resume?: ResumePoint;
  /** As the request is handed to the fetch. */
  onSend?: () => void;
}

/** The request of a run's model call, but for its history (fitted to the window at each attempt). */
async function requestOf(deps: RunParts, run: RunInfo, message: MessageRecord, prompt: StructuredPrompt, rec: RunRecorder, signal: AbortSignal, opts: CallOptions) {
  const { invoker, config } = deps;
  const model = await invoker.modelInfo(run.model);
  const maxTokens = Math.min(config.maxOutputTokens, model.maxOutputTokens);
  const retrieves = run.projectRetrieves === true;
  // A project too large to send whole: the passages that best match the message go with it.
  const passages = retrieves && !opts.resume ? await retrieve(deps, run, run.content) : [];
  const attachments = [...passages, ...(message.attachments?.map(refBlock) ?? [])];
  const offered = offeredTools(deps.stepZero.current?.mcp ?? [], run.thread.mcpOff ?? []);
  const tools = [
    ...deps.plugins.tools({ model, thread: run.thread, codeExecution: config.codeExecution, offline: invoker.offline }),
    ...definitions(offered),
    ...(retrieves ? [projectSearchTool] : []),
  ];
  const code = runsCode(tools);
  const project = projectBlocks(deps, code, retrieves);
  const container = code ? keptContainer(deps, message) : undefined;
  const codeFiles = code ? deps.uploads.forRun(run.ownerId, signal) : null;
  const outputs = new CodeOutputs(deps, run, signal, (out) => rec.codeOutput(out));
  // The thread's own section goes last, in a block of its own (base-prompt.ts says why).
  const system = [prompt.system, threadSection(run.thread)];
  const request: Omit<InvokeRequest, "history" | "compactAt"> = {
    model: run.model,
    system,
    prompt: prompt.prompt,
    attachments,
    prepare: (messages) => deps.files.prepare(opening(messages, project), codeFiles, run.content),
    tools,
    resume: opts.resume,
    runTool: (name, input, toolUseId, resumable) => {
      if (name === PROJECT_SEARCH_TOOL && retrieves) return searchTool(deps, run, input);
      const mcp = offered.get(name);
      if (mcp) return callOffered(deps, run, mcp, input, toolUseId, () => ({ point: resumable(), prompt }), signal, opts.hold);
      return callPluginTool(deps, run, name, input, toolUseId, () => ({ point: resumable(), prompt }), signal, opts.hold);
    },
    beforeRound: (messages) => reserveRequest(deps, run, () => messagesTokens(messages)),
    ...(opts.onSend ? { onSend: opts.onSend } : {}),
    ...(container !== undefined ? { container: container.id } : {}),
    onCodeResult: (result) => outputs.take(result),
    onUploadGone: (upstreamId) => deps.uploads.gone(upstreamId, run.ownerId),
    onEvent: (e) => rec.stream(e),
    onContentEnd: () => rec.flush(),
    signal,
    thinking: invoker.offline ? null : thinkingFor(model, config.thinking, maxTokens),
    maxTokens,
    onCompaction: () => rec.step({ step: "compacted" }),
    onCompactionRefused: () => deps.logger.warn("the model API refused compaction; going on without it", { threadId: run.threadId }),
  };
  return { model, maxTokens, request, outputs, container, fixed: fixedTokens(system.join("\n\n"), prompt.prompt, [...project, ...attachments], tools) };
}

export async function callModel(
  deps: RunParts,
  run: RunInfo,
  message: MessageRecord,
  prompt: StructuredPrompt,
  rec: RunRecorder,
  signal: AbortSignal,
  opts: CallOptions = {},
): Promise<InvokeResult> {
  const { invoker, config, calibration } = deps;
  const { model, maxTokens, request, outputs, container, fixed } = await requestOf(deps, run, message, prompt, rec, signal, opts);
  const turns = sinceCompaction(deps.view.before(message.parentId).turns);
  for (let attempt = 0; ; attempt++) {
    const budget = calibration.budget(model, maxTokens, config.contextTokenBudget);
    const { history, dropped, estimate } = fitHistory(turns, budget / calibration.ratio - fixed);
    if (dropped) deps.logger.info("history trimmed to the window", { threadId: run.threadId, droppedExchanges: dropped, budget });
    const compactAt = model.compaction ? Math.floor(budget * COMPACT_AT) : null;
    try {
      const result = await invoker.invoke({ ...request, history, compactAt });
      calibration.observe(result.firstInputTokens, fixed + estimate);
      if (container && ranCode(result.turns)) keepContainer(deps, run, message, container, result.container);
      await outputs.settled();
      return result;
    } catch (err) {
      const limit = err instanceof InvokeFailure && err.error.promptTooLong && !err.output ? parseTooLong(err.error.message) : null;
      if (!limit) throw err;
      calibration.tooLong(run.model, limit, fixed + estimate);
      if (history.length === 0 || attempt >= RETRIES) {
        throw new RunError(
          "invalid_request",
          `This message is too long for ${model.displayName}: about ${limit.tokens.toLocaleString("en")} tokens, and it takes at most ${limit.max.toLocaleString("en")}. Shorten it, or send it in parts.`,
          false,
        );
      }
    }
  }
}

/** Whether the request offers the code execution tool (the code plugin's, at any version). */
const runsCode = (tools: ModelTool[]) => tools.some((t) => "type" in t && typeof t.type === "string" && t.type.startsWith("code_execution_"));


/** Whether the model ran code in these turns (a container then holds what it did). */
const ranCode = (turns: ApiMessage[]) =>
  turns.some((t) => t.role === "assistant" && Array.isArray(t.content) && t.content.some((b) => b.type === "server_tool_use" && isCodeTool(b.name)));

/**
 * The thread's container to run in again, or null for a new one, and why: none yet, past its expiry,
 * or made by a run of another branch (its files and variables are that branch's, which this branch's
 * answers must not build on unawares: a branch switch starts a new one, and says so).
 */
function keptContainer(deps: RunParts, message: MessageRecord): ContainerChoice {
  const kept = deps.store.thread.get()?.container;
  if (!kept) return { id: null };
  if (kept.expiresAt <= Date.now()) return { id: null, expired: true };
  const onBranch = !kept.exchange || kept.exchange === message.parentId || deps.view.before(message.parentId).turns.some((t) => t.exchange === kept.exchange);
  return onBranch ? { id: kept.id } : { id: null, otherBranch: true };
}

/**
 * The container the run ran in is the thread's next run's; the clients hear whether it is new, the
 * one before (its files and variables are there), or new because the one before had expired.
 */
function keepContainer(deps: RunParts, run: RunInfo, message: MessageRecord, chose: ContainerChoice, ran: InvokeResult["container"]): void {
  if (!ran) return;
  const status = ran.replaced || chose.expired ? "expired" : chose.id === ran.id ? "reused" : "new";
  deps.store.thread.update({ container: { id: ran.id, expiresAt: ran.expiresAt, exchange: message.id } }, Date.now());
  deps.events.emit("code:container", { threadId: run.threadId, runId: run.runId, status, ...(status === "new" && chose.otherBranch ? { reason: "branch" as const } : {}) });
}

/** The container a run asks for (null: a new one), and why it asks for none. */
interface ContainerChoice {
  id: string | null;
  expired?: boolean;
  otherBranch?: boolean;
}
