// Every type a plugin sees: its definition, its context, each hook's signature, and which runner
// each hook goes through (HOOK_RUNNERS). Start here.
import type { z } from "zod";
import type {
  EventMap,
  EventFrame,
  EventName,
  Message,
  MessageMetadata,
  ModelInfo,
  PipelineStep,
  RunErrorCode,
  StreamEvent,
  Task,
  Thread,
  Usage,
} from "../../protocol";
import type { Env } from "../env";
import type { BuiltinTool, InvokeResult, ToolOutcome } from "../invoker/types";
import type { Logger } from "../lib/logger";
import type { ModelPort, OwnerPort, ThreadPort } from "./ports";

// The ports a plugin's context lends it are declared in ports.ts, and seen from here.
export type { ModelPort, NewMessage, OwnerPort, ThreadPort, UsageRow } from "./ports";

/** What onBeforeInvoke chains: stable context goes to `system` (cached), per-turn text to `prompt`. */
export interface StructuredPrompt {
  system: string;
  prompt: string;
}

/** The run a hook is called for. */
export interface RunInfo {
  threadId: string;
  runId: string;
  /** The message this run answers. */
  messageId: string;
  thread: Thread;
  ownerId: string;
  model: string;
  /** The model's context window, in tokens (its catalog entry, or CONTEXT_TOKEN_BUDGET). */
  contextWindow: number;
  /** The text the run answers (the user's message, or a task's iteration prompt). */
  content: string;
  message: Message;
  /** True when the model's view of the branch is held by the object (no history needs injecting). */
  resident: boolean;
  /**
   * True when the thread's project holds more text than its share of the model's window: the run
   * retrieves passages (and offers project__search) instead of sending the project whole.
   */
  projectRetrieves?: boolean;
  /** Set when this run is an iteration of a delegated task. */
  taskId?: string;
  startedAt: number;
}

/** A pipeline step as it happened (onPipelineStep), with what the pipeline:step event carries. */
export interface StepInfo {
  step: PipelineStep;
  detail?: string;
  usage?: Usage;
}

/** What handleMessage returns (the seed's `{ invokeResult, prompt, commandsHandled, pipelineSteps, streamEvents }`). */
export interface RunOutcome {
  status: "completed" | "failed";
  durationMs: number;
  /** The model's result, when the run got one. */
  result?: InvokeResult;
  error?: { code: RunErrorCode; message: string; retryable: boolean };
  /** The prompt the model was given, as the onBeforeInvoke chain left it. */
  prompt?: StructuredPrompt;
  /** The stored assistant message, when the run produced text. */
  assistantMessage?: Message;
  commandsHandled: string[];
  commandsUnhandled: string[];
  steps: PipelineStep[];
  /** The run's stream, with consecutive text and thinking deltas merged into whole blocks. */
  streamEvents: StreamEvent[];
  /** Usage of the run, also on failure (what was billed before it failed). */
  usage: Usage;
}

export interface Command {
  name: string;
  args: string;
  /** The whole line, as written. */
  raw: string;
}

/** One broadcast event as the core delivered it, numbered, with its thread and its wire form. */
export type BroadcastFrame = EventFrame & { threadId: string; json: string };

export interface Hooks {
  onMessage?(message: Message, run: RunInfo): void | Promise<void>;
  onBeforeInvoke?(prompt: StructuredPrompt, run: RunInfo): StructuredPrompt | Promise<StructuredPrompt>;
  onAfterInvoke?(result: InvokeResult, run: RunInfo): void | Promise<void>;
  onCommand?(command: Command, run: RunInfo): boolean | Promise<boolean>;
  /** Observes each event after the core delivered it to the sockets; synchronous hooks keep seq order. */
  onBroadcast?(frame: BroadcastFrame): void | Promise<void>;
  onPipelineStart?(run: RunInfo): void | Promise<void>;
  onPipelineStep?(step: StepInfo, run: RunInfo): void | Promise<void>;
  /** Every delta, before coalescing (a tool's partial input, `tool_input`, excepted: its `tool_call` follows whole): keep it cheap. */
  onStreamEvent?(event: StreamEvent, run: RunInfo): void | Promise<void>;
  onPipelineComplete?(outcome: RunOutcome, run: RunInfo): void | Promise<void>;
  onTaskCreate?(task: Task): void | Promise<void>;
  /**
   * Throw to reject the result: the message is fed back into the task's next iteration. The judge is
   * named on the task's card (task:evaluated `by`): a returned string names it for an acceptance, a
   * thrown error's string `by` for a rejection (default: the plugin's name).
   */
  onTaskComplete?(task: Task, result: string): void | string | Promise<void | string>;
  onTaskFailed?(task: Task, reason: string): void | Promise<void>;
  /** The user cancelled a task; called in the task thread's object, before its run is stopped. */
  onTaskCancel?(taskId: string): void | Promise<void>;
}

export type HookName = keyof Hooks;

/** Each hook's runner (worker/plugins/runners.ts): sequential, in registration order, errors isolated. */
export const HOOK_RUNNERS = {
  onMessage: "notify",
  onBeforeInvoke: "chain",
  onAfterInvoke: "notify",
  onCommand: "firstTrue",
  onBroadcast: "notify",
  onPipelineStart: "notify",
  onPipelineStep: "notify",
  onStreamEvent: "notify",
  onPipelineComplete: "notify",
  onTaskCreate: "notify",
  onTaskComplete: "validate",
  onTaskFailed: "notify",
  onTaskCancel: "notify",
} as const satisfies Record<HookName, "notify" | "chain" | "firstTrue" | "validate">;

type HooksRunBy<R extends string> = { [K in HookName]: (typeof HOOK_RUNNERS)[K] extends R ? K : never }[HookName];
/** Called for their effect; none can stop another. */
export type NotifyHook = HooksRunBy<"notify">;
/** Each gets the previous one's value; a throw keeps it. */
export type ChainHook = HooksRunBy<"chain">;
/** Stops at the first that returns true. */
export type FirstTrueHook = HooksRunBy<"firstTrue">;
/** A throw is a veto, its message the feedback. */
export type ValidateHook = HooksRunBy<"validate">;
export type HookArgs<K extends HookName> = Parameters<NonNullable<Hooks[K]>>;

export interface ToolCall {
  threadId: string;
  /** The run that calls it, and the message the run answers (its exchange, on its branch). */
  runId: string;
  messageId: string;
  taskId?: string;
  ownerId: string;
  toolUseId: string;
  signal: AbortSignal;
}

export interface ToolDefinition<I = any> {
  /** Exposed to the model as `pluginName__name`. */
  name: string;
  /** As the plugins page shows it; the model's, unless `describe` makes it from the thread. */
  description: string;
  /** The model's description, made when a run lists its tools (keep it stable per thread: the prompt cache). */
  describe?(ctx: PluginContext<any>): string;
  /** JSON Schema of the input object. */
  inputSchema: { type: "object"; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };
  /** The call waits for the user's approval before it runs, as an MCP tool that asks does (its effects outlive the run). */
  asks?: boolean;
  handler(input: I, call: ToolCall, ctx: PluginContext<any>): Promise<string | ToolOutcome> | string | ToolOutcome;
}

/**
 * A tool the Messages API defines, offered under its own name: Anthropic runs a server tool (web
 * search, web fetch) and the stream carries its blocks; the app carries out a client one (memory)
 * through `handler`, as it does a plugin's own tool.
 */
/** What a request's tools are for: a per-request builtin tool reads it. */
export interface ToolRequest {
  model: ModelInfo;
  thread: Thread;
  /** The deployment offers code execution (CODE_EXECUTION). */
  codeExecution: boolean;
  /** The offline stand-in model answers: no server tool is run. */
  offline: boolean;
}

export interface BuiltinToolDefinition<S = any> {
  /** Shown on the plugins page. */
  description: string;
  /**
   * The definition as this plugin's settings make it; null: not offered. With `perRequest`, made
   * again for each request from what it is for (the model's version of the tool, the thread's switch).
   */
  definition(settings: S, request?: ToolRequest): BuiltinTool | null;
  perRequest?: boolean;
  handler?: ToolDefinition["handler"];
}

export interface SendOptions {
  role?: "user" | "system";
  source?: string;
  metadata?: MessageMetadata;
  /** The message is an iteration of this task. */
  taskId?: string;
  /** false: store and broadcast the message without running the pipeline on it. */
  run?: boolean;
}

/** A new thread made by a plugin (a task thread), created in its own object and recorded in D1. */
export interface NewThread {
  /** Its id, when the plugin needs it before the thread exists (a task is kept first). */
  id?: string;
  ownerId: string;
  name: string;
  kind: Thread["kind"];
  model: string;
  parentThreadId: string | null;
  source: string;
}

/** What the onTaskComplete hooks decided; `by` names who judged, as the hooks said (see onTaskComplete). */
export type TaskVerdict = { accepted: true; by?: string } | { accepted: false; feedback: string; plugin: string; by?: string };

/** Every plugin's task hooks, for the plugin that runs tasks (delegation) to call. */
export interface TaskHooks {
  created(task: Task): Promise<void>;
  validate(task: Task, result: string): Promise<TaskVerdict>;
  failed(task: Task, reason: string): Promise<void>;
}

export interface PluginContext<S = Record<string, unknown>> {
  name: string;
  env: Env;
  /** The owner's object: what spans the owner's threads (their files, their tasks). */
  owner: OwnerPort;
  logger: Logger;
  /** This plugin's settings as now configured (validated by its schema). */
  readonly settings: S;
  thread: ThreadPort;
  /** The thread object's clock: strictly increasing, so rows stamped with it list in order. */
  now(): number;
  /**
   * Stores `content` in a thread of the same owner and runs its pipeline (queued behind any run in
   * progress). Threads reach only their owner's threads: the object checks.
   */
  sendToThread(threadId: string, content: string, options?: SendOptions): Promise<Message>;
  /** Broadcasts an event to a thread's sockets (any thread of the owner: others are reached by RPC). */
  broadcast<K extends EventName>(threadId: string, event: K, data: EventMap[K]): Promise<void>;
  /** The model, for a plugin's own short questions (a title, a verdict); each call is billed. */
  model: ModelPort;
  /** Creates a thread in its own object; it is in the owner's thread list when this answers. */
  createThread(thread: NewThread): Promise<Thread>;
  tasks: TaskHooks;
}

export interface PluginDefinition<S extends Record<string, unknown> = Record<string, unknown>> {
  name: string;
  version: string;
  description?: string;
  /** Validates PATCH /api/plugins settings; its defaults are the settings of a new install. */
  settings?: z.ZodType<S>;
  tools?: ToolDefinition[];
  builtinTools?: BuiltinToolDefinition<S>[];
  /** Called once per thread object; returns the hooks this plugin implements. */
  register(ctx: PluginContext<S>): Hooks;
  /** Once per thread object, before its first run (after register). A throw is logged. */
  start?(ctx: PluginContext<S>): Promise<void>;
  /** When the thread object is destroyed (its thread deleted). */
  stop?(ctx: PluginContext<S>): Promise<void>;
  /** Bounds for hooks that legitimately take long (a validator calling the model), by hook. */
  hookTimeoutMs?: Partial<Record<HookName, number>>;
}

export type { Logger };
