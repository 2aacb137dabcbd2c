// Every type a plugin sees: its definition, its context, and each hook's signature. Start here.
//
// Hook semantics (worker/plugins/runners.ts), all sequential in registration order, each plugin's
// error isolated and each call bounded by a timeout:
//   notify      onMessage, onAfterInvoke, onBroadcast, onPipelineStart, onStreamEvent,
//               onPipelineComplete, onTaskCreate, onTaskFailed: no return value, cannot stop others
//   chain       onBeforeInvoke: each gets the previous one's prompt; a throw keeps the previous value
//   first-true  onCommand: stops at the first plugin that returns true
//   validate    onTaskComplete: a throw rejects the task's result, its message becomes feedback
import type { z } from "zod";
import type { Db } from "../db/client";
import type { Message, Task, Thread } from "../db/shapes";
import type { Env } from "../env";
import type { RunErrorCode } from "../invoker/errors";
import type { InvokeResult, StreamEvent, ToolOutcome } from "../invoker/types";

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
  /** The text the run answers (the user's message, or a task's iteration prompt). */
  content: string;
  message: Message;
  /** True when the object holds a live conversation for this thread (the model has the history). */
  resident: boolean;
  /** Set when this run is an iteration of a delegated task. */
  taskId?: string;
  startedAt: number;
}

export interface RunOutcome {
  status: "completed" | "failed";
  durationMs: number;
  result?: InvokeResult;
  error?: { code: RunErrorCode; message: string; retryable: boolean };
  /** The stored assistant message, when the run produced text. */
  assistantMessage?: Message;
  commandsHandled: string[];
  /** Usage of the run, also on failure (what was billed before it failed). */
  usage: InvokeResult["usage"];
}

export interface Command {
  name: string;
  args: string;
  /** The whole line, as written. */
  raw: string;
}

/** One broadcast event, numbered, and its wire form (serialized once for every socket). */
export interface BroadcastFrame {
  threadId: string;
  event: string;
  data: Record<string, unknown>;
  timestamp: number;
  seq: number;
  json: string;
}

export interface Hooks {
  onMessage?(message: Message, run: RunInfo): void | Promise<void>;
  onBeforeInvoke?(prompt: StructuredPrompt, run: RunInfo): StructuredPrompt | Promise<StructuredPrompt>;
  onAfterInvoke?(result: InvokeResult, run: RunInfo): void | Promise<void>;
  onCommand?(command: Command, run: RunInfo): boolean | Promise<boolean>;
  /** Runs synchronously for synchronous hooks, so sockets get frames in seq order. */
  onBroadcast?(frame: BroadcastFrame): void | Promise<void>;
  onPipelineStart?(run: RunInfo): void | Promise<void>;
  /** Every delta, before coalescing: keep it cheap. */
  onStreamEvent?(event: StreamEvent, run: RunInfo): void | Promise<void>;
  onPipelineComplete?(outcome: RunOutcome, run: RunInfo): void | Promise<void>;
  onTaskCreate?(task: Task): void | Promise<void>;
  /** Throw to reject the result: the message is fed back into the task's next iteration. */
  onTaskComplete?(task: Task, result: string): void | Promise<void>;
  onTaskFailed?(task: Task, reason: string): void | Promise<void>;
}

export type HookName = keyof Hooks;

export interface ToolCall {
  threadId: string;
  taskId?: string;
  ownerId: string;
  toolUseId: string;
  signal: AbortSignal;
}

export interface ToolDefinition<I = any> {
  /** Exposed to the model as `pluginName__name`. */
  name: string;
  description: string;
  /** JSON Schema of the input object. */
  inputSchema: { type: "object"; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };
  handler(input: I, call: ToolCall, ctx: PluginContext<any>): Promise<string | ToolOutcome> | string | ToolOutcome;
}

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** The thread's object as a plugin may use it: its sockets and its identity. */
export interface RoomPort {
  threadId(): string | null;
  sockets(): WebSocket[];
}

export interface SendOptions {
  role?: "user" | "system";
  source?: string;
  metadata?: Record<string, unknown>;
  /** The message is an iteration of this task. */
  taskId?: string;
  /** false: store and broadcast the message without running the pipeline on it. */
  run?: boolean;
}

/** Every plugin's task hooks, for the plugin that runs tasks (delegation) to call. */
export interface TaskHooks {
  created(task: Task): Promise<void>;
  validate(task: Task, result: string): Promise<{ accepted: true } | { accepted: false; feedback: string; plugin: string }>;
  failed(task: Task, reason: string): Promise<void>;
}

export interface PluginContext<S = Record<string, unknown>> {
  name: string;
  env: Env;
  db: Db;
  logger: Logger;
  /** This plugin's settings as now stored (validated by its schema). */
  readonly settings: S;
  room: RoomPort;
  /** Stores `content` in a thread and runs its pipeline (queued behind any run in progress). */
  sendToThread(threadId: string, content: string, options?: SendOptions): Promise<Message>;
  /** The thread object's clock: strictly increasing, so rows stamped with it list in order. */
  now(): number;
  /** Broadcasts an event to a thread's sockets (any thread: other threads are reached by RPC). */
  broadcast(threadId: string, event: string, data: Record<string, unknown>): Promise<void>;
  tasks: TaskHooks;
}

export interface PluginDefinition<S extends Record<string, unknown> = Record<string, unknown>> {
  name: string;
  version: string;
  description?: string;
  /** Validates PATCH /api/plugins settings; its defaults are the settings of a new install. */
  settings?: z.ZodType<S>;
  tools?: ToolDefinition[];
  /** Called once per thread object; returns the hooks this plugin implements. */
  register(ctx: PluginContext<S>): Hooks;
  /** Once per thread object, before its first run (after register). A throw is logged. */
  start?(ctx: PluginContext<S>): Promise<void>;
  /** When the thread object is destroyed (its thread deleted). */
  stop?(ctx: PluginContext<S>): Promise<void>;
  /** Bounds for hooks that legitimately take long (a validator calling the model), by hook. */
  hookTimeoutMs?: Partial<Record<HookName, number>>;
}
