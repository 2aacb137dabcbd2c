import type Anthropic from "@anthropic-ai/sdk";
import { AnswerText } from "./answer-text";
import type { CodeResult } from "./code-result";
import { fetchProduced, uploadForCode, type ProducedFileBytes } from "./files-api";
import { runTools, toolUses } from "./tool-round";
import { CodeMeter } from "./code-meter";
import { classify, RunError } from "./errors";
import { readStream, type ReadEvent, type StreamedMessage, type StreamProgress } from "./read-stream";
import { fitFiles } from "./file-fit";
import type { ModelInfo } from "../../protocol";
import { modelInfo } from "./catalog";
import { buildParams, type RequestSpec } from "./request";
import { sdkStream, type OpenStream } from "./stream-request";
import { Amendments, type ContainerUse } from "./amendments";
import {
  addUsage,
  emptyUsage,
  type ApiContent,
  type ApiMessage,
  type InvokeResult,
  type ModelTool,
  type ResumePoint,
  type StreamEvent,
  type ToolRun,
  type Usage,
} from "./types";

export interface InvokeRequest {
  model: string;
  /** The system prompt's blocks, most stable first: the first is cached, the later ones follow it. */
  system: readonly string[];
  /** This turn's user text. */
  prompt: string;
  /** Blocks that go before the text in this turn's user message (attachment references). */
  attachments?: ApiContent[];
  /** Turns the conversation into what is sent, just before each request (attachments' bytes). */
  prepare?(messages: ApiMessage[]): Promise<ApiMessage[]>;
  /** Overrides of the deployment's defaults for this request (the model's catalog entry decides). */
  thinking?: Anthropic.ThinkingConfigParam | null;
  maxTokens?: number;
  /**
   * Compaction's trigger in input tokens, where the model takes the edit; absent: off. Left out while
   * the upstream is known to refuse the beta (the invoker remembers it).
   */
  compactAt?: number | null;
  /** The server compacted the conversation (a compaction block opens the answer). */
  onCompaction?(): void;
  /** The server refused the compaction beta: the request goes again without it, as do the next ones. */
  onCompactionRefused?(): void;
  /** The resident conversation before this turn, already inside the token budget. */
  history: ApiMessage[];
  tools: ModelTool[];
  /** `resumable` answers where the run stands, for a tool that must wait before it runs (an approval). */
  runTool(name: string, input: unknown, toolUseId: string, resumable: () => ResumePoint): Promise<ToolRun>;
  /** Goes on from a point a waiting tool kept, instead of from `prompt` (its history is the same). */
  resume?: ResumePoint;
  /**
   * Before each request after the first (a tool round), with what it will send: a throw ends the run
   * there, as the request's failure would (the spend cap reserves each request's worst case).
   */
  beforeRound?(messages: ApiMessage[]): Promise<void>;
  /** As each request is handed to the fetch (a run times its first: thread/run/phases.ts). */
  onSend?(): void;
  /** The code execution container the thread's last run used, to run in again (its files, its variables). */
  container?: string | null;
  /** A code run ended (its result block is whole): its output and the ids of the files it wrote. */
  onCodeResult?(result: CodeResult): void;
  /** The API does not have a file a container_upload named (its Files API id): the next request uploads it again. */
  onUploadGone?(upstreamId: string): void;
  onEvent(e: StreamEvent): void;
  /** A response's content is whole (its end follows): what a caller buffers for sockets can go now. */
  onContentEnd?(): void;
  signal: AbortSignal;
}

export interface InvokerOptions {
  maxTokens: number;
  thinking: Anthropic.ThinkingConfigParam | null;
  maxToolTurns: number;
  /** The most code runs one answer may make (CODE_RUNS_PER_RUN). */
  maxCodeRuns: number;
  retryAttempts: number;
  retryBaseMs: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** A run that failed part-way: what it had produced stays usable (kept, shown, stored). */
export class InvokeFailure extends Error {
  constructor(
    readonly error: RunError,
    readonly output: string,
    readonly turns: ApiMessage[],
    readonly usage: Usage,
  ) {
    super(error.message);
  }
}

const MAX_RETRY_DELAY_MS = 30_000;

/** Calls the Messages API for one user turn, running the tool loop, with retries before the first token. */
export class Invoker {
  /** What this object's requests learned the API refuses (the object holds one invoker). */
  private readonly amendments = new Amendments();

  constructor(
    private readonly client: Anthropic,
    private readonly opts: InvokerOptions,
    /** True for the offline stand-in: its catalog is the built-in one, and it takes no thinking. */
    readonly offline = false,
    /** How a streamed request goes out (stream-request.ts): the deployment's is one fetch. */
    private readonly open: OpenStream = sdkStream(client),
  ) {}

  /**
   * A file the model's code wrote, from the Files API: its name, type and bytes, read up to
   * `maxBytes` (a larger one is refused by its size before its bytes are read).
   */
  producedFile(fileId: string, maxBytes: number, signal?: AbortSignal): Promise<ProducedFileBytes> {
    return fetchProduced(this.client, fileId, maxBytes, signal);
  }

  /** Puts a file up for the code's container (a container_upload names it): its Files API id. */
  uploadForCode(file: { name: string; mediaType: string; bytes: Uint8Array }, signal?: AbortSignal): Promise<string> {
    return uploadForCode(this.client, file, signal);
  }

  /** The catalog entry of `model`, which every request to it is built from. */
  modelInfo(model: string): Promise<ModelInfo> {
    return modelInfo(this.offline ? null : this.client, model);
  }

  /** One short answer, no tools, no thinking (a title, a verdict): its text and what it cost. */
  async ask(req: { model: string; system: string; prompt: string; maxTokens: number; signal?: AbortSignal }): Promise<{ text: string; usage: Usage }> {
    const result = await this.invoke({
      ...req,
      system: [req.system],
      history: [],
      tools: [],
      runTool: async () => ({ content: "No tools here.", isError: true }),
      onEvent: () => {},
      signal: req.signal ?? new AbortController().signal,
      thinking: null,
    });
    return { text: result.output.trim(), usage: result.usage };
  }

  async invoke(req: InvokeRequest): Promise<InvokeResult> {
    const started = Date.now();
    const from = req.resume;
    const turns: ApiMessage[] = from ? [...from.turns] : [{ role: "user", content: [...(req.attachments ?? []), { type: "text", text: req.prompt }] }];
    const answer = new AnswerText(from?.output ?? "", req.onEvent);
    let usage = from?.usage ?? emptyUsage();
    let toolCalls = from?.toolCalls ?? 0;
    let stopReason: string | null = null;
    let requestStart = 0;
    let firstInputTokens = 0;
    // What the request in flight has cost so far: a failed or stopped run is billed for it too.
    const progress: StreamProgress = { started: false, usage: emptyUsage() };
    // A run's requests share one container: the first names the thread's, the next the one it got.
    const container: ContainerUse = { asked: req.container ?? null, ran: null, replaced: false };
    const code = new CodeMeter(this.opts.maxCodeRuns);
    let codeCut = false;
    const pointAt = (done: Anthropic.ToolResultBlockParam[]) => (): ResumePoint => ({ turns: [...turns], output: answer.text, usage: addUsage(usage, progress.usage), toolCalls, done: [...done] });
    try {
      if (from) {
        // The tools of the turn the run stopped in, from the one that waited: then the model again.
        const calls = toolUses(turns[turns.length - 1]).filter((c) => !from.done.some((d) => d.tool_use_id === c.id));
        turns.push({ role: "user", content: await runTools((...a) => req.runTool(...a), calls, false, answer.event, pointAt, from.done) });
        answer.toolsRan();
      }
      for (let round = from ? turns.filter((t) => t.role === "assistant").length : 0; ; round++) {
        const lastRound = round >= this.opts.maxToolTurns || codeCut;
        requestStart = answer.text.length;
        const messages = [...req.history, ...turns];
        if (round > 0) {
          answer.toolsRan();
          await req.beforeRound?.(messages);
        }
        const reply = await this.request(req, messages, lastRound, answer.event, progress, container, code);
        if (round === 0) firstInputTokens = reply.usage.inputTokens + reply.usage.cacheReadTokens + reply.usage.cacheWriteTokens;
        usage = addUsage(usage, reply.usage);
        progress.usage = emptyUsage();
        stopReason = reply.stopReason;
        if (reply.content.length) turns.push({ role: "assistant", content: reply.content });
        // A long server-tool turn paused by the API: sending the conversation back lets it go on.
        if (stopReason === "pause_turn" && !lastRound) continue;
        // The answer ran code as often as it may: told so, the model finishes in words.
        if (stopReason === "code_limit" && !lastRound) {
          turns.push({ role: "user", content: [{ type: "text", text: code.limitNote }] });
          codeCut = true;
          continue;
        }
        const calls = toolUses(turns[turns.length - 1]);
        if (stopReason !== "tool_use" || calls.length === 0) break;
        toolCalls += calls.length;
        turns.push({ role: "user", content: await runTools((...a) => req.runTool(...a), calls, lastRound, answer.event, pointAt) });
        if (req.signal.aborted) throw classify(null, req.signal);
      }
    } catch (err) {
      throw failure(err, req.signal, answer.text, turns, answer.text.slice(requestStart), code.billed(addUsage(usage, progress.usage)));
    }
    const ran = container.ran ? { ...container.ran, replaced: container.replaced } : null;
    return { output: answer.text, model: req.model, usage: code.billed(usage), durationMs: Date.now() - started, stopReason, turns, toolCalls, firstInputTokens, container: ran };
  }

  private async request(
    req: InvokeRequest,
    messages: ApiMessage[],
    lastRound: boolean,
    onEvent: (e: StreamEvent) => void,
    progress: StreamProgress,
    container: ContainerUse,
    code: CodeMeter,
  ): Promise<StreamedMessage> {
    const spec: RequestSpec = {
      model: req.model,
      system: req.system,
      messages: this.amendments.known(fitFiles(req.prepare ? await req.prepare(messages) : messages)),
      historyLength: req.history.length,
      tools: req.tools,
      toolsOff: lastRound,
      thinking: req.thinking === undefined ? this.opts.thinking : req.thinking,
      maxTokens: req.maxTokens ?? this.opts.maxTokens,
      compactAt: this.amendments.compactAt(req.compactAt),
      container: container.ran?.id ?? container.asked,
    };
    const onBlock = (e: ReadEvent) => {
      if (e.type === "compaction") req.onCompaction?.();
      else if (e.type === "content_end") req.onContentEnd?.();
      else if (e.type === "cited") onEvent({ type: "citations", at: -1, citations: e.citations }); // `at` is the invoker's to set
      else if (e.type === "code_result") req.onCodeResult?.(e.result);
      else onEvent(e);
    };
    // How many times a refused file was looked for (the first ones leave out one file at a time).
    const leftOut = { files: 0 };
    for (let attempt = 1; ; attempt++) {
      progress.started = false;
      progress.usage = emptyUsage();
      const params = buildParams(spec);
      const sentAt = Date.now();
      req.onSend?.();
      try {
        const stream = await this.open(params as Parameters<OpenStream>[0], req.signal);
        this.amendments.accepted(params.messages as ApiMessage[]);
        const reply = await readStream(stream as AsyncIterable<Anthropic.Beta.BetaRawMessageStreamEvent>, onBlock, progress, code);
        code.request(params.messages as ApiMessage[], reply.content, Date.now() - sentAt);
        if (reply.container) container.ran = reply.container;
        return reply;
      } catch (err) {
        if (this.amendments.amend(err, { req, spec, sent: params.messages as ApiMessage[], progress, container, leftOut })) {
          attempt--;
          continue;
        }
        const error = classify(err, req.signal, true);
        // Once tokens reached the user a retry would show them twice; before that it is invisible.
        if (progress.started || !error.retryable || attempt >= this.opts.retryAttempts || req.signal.aborted) throw error;
        const backoff = this.opts.retryBaseMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5);
        await (this.opts.sleep ?? sleep)(Math.min(error.retryAfterMs ?? backoff, MAX_RETRY_DELAY_MS), req.signal);
      }
    }
  }
}

/**
 * A fault mid-call, with what the call had got: its text, its whole turns and the text of the request
 * in flight after them, and what it cost.
 */
function failure(err: unknown, signal: AbortSignal, output: string, turns: ApiMessage[], inFlight: string, usage: Usage): InvokeFailure {
  const kept = completeTurns(turns);
  const tail = inFlight.replace(/^\s+/, "");
  if (tail) kept.push({ role: "assistant", content: [{ type: "text", text: tail }] });
  return new InvokeFailure(classify(err, signal), output, kept, usage);
}

/** Drops a trailing assistant turn whose tool_use never got its result (the API would refuse it). */
function completeTurns(turns: ApiMessage[]): ApiMessage[] {
  const last = turns[turns.length - 1];
  if (last?.role === "assistant" && Array.isArray(last.content) && last.content.some((b) => b.type === "tool_use")) {
    return turns.slice(0, -1);
  }
  return turns;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
