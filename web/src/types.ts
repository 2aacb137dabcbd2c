// Shapes of the public protocol (/work/shared/PROTOCOL.md and docs/protocol-notes.md), declared once.
// The UI talks to the Worker only through these.

// ---------- Resources ----------

export type ThreadKind = "general" | "primary" | "task" | "cron";
export type ThreadStatus = "open" | "active" | "completed" | "failed" | "archived";

export interface Thread {
  id: string;
  name: string;
  kind: ThreadKind;
  status: ThreadStatus;
  model: string;
  sessionId: string | null;
  parentThreadId: string | null;
  lastActivity: number;
  createdAt: number;
}

export type Role = "user" | "assistant" | "system";
export type MessageKind = "text" | "thinking" | "tool_call" | "tool_result" | "pipeline_step" | "status";

export interface Message {
  id: string;
  threadId: string;
  role: Role;
  kind: MessageKind;
  source: string | null;
  content: string;
  model: string | null;
  metadata: MessageMetadata | null;
  createdAt: number;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** Metadata is open-ended; these are the fields the notes document, all optional. */
export interface MessageMetadata {
  runId?: string;
  usage?: Usage;
  durationMs?: number;
  stopReason?: string;
  aborted?: boolean;
  error?: string;
  code?: string;
  step?: string;
  detail?: string;
  toolUseId?: string;
  toolName?: string;
  input?: unknown;
  isError?: boolean;
  clientMessageId?: string;
  // cross-thread notification
  type?: string;
  sourceThreadId?: string;
  taskId?: string;
  status?: string;
  iterations?: number;
  [key: string]: unknown;
}

export type TaskStatus = "pending" | "running" | "evaluating" | "completed" | "failed" | "cancelled";

export interface Task {
  id: string;
  threadId: string;
  parentThreadId: string | null;
  status: TaskStatus;
  prompt: string;
  result: string | null;
  maxIterations: number;
  currentIteration: number;
  createdAt: number;
  updatedAt: number;
}

export interface Run {
  id: string;
  threadId: string;
  taskId: string | null;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  durationMs: number;
  status: string;
  startedAt: number;
}

export interface MetricsTotals {
  runs: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

export interface PluginTool {
  name: string;
  description?: string;
}

export interface Plugin {
  name: string;
  version: string;
  enabled: boolean;
  order: number;
  /** PROTOCOL.md says `tools: [...]`: names or tool objects; both are accepted. */
  tools: Array<string | PluginTool>;
  /** Not in PROTOCOL.md's list answer; shown when the server includes it. */
  settings?: unknown;
}

export interface ContextFileInfo {
  path: string;
  bytes: number;
  updatedAt: number;
}

export interface Health {
  ok: boolean;
  version: string;
  model: { provider: "anthropic" | "offline"; default: string };
}

// ---------- Errors ----------

export interface ApiIssue {
  path?: Array<string | number>;
  message: string;
  code?: string;
}

export interface ApiErrorBody {
  error: { code: string; message: string; issues?: ApiIssue[] };
}

// ---------- WebSocket frames ----------

export type PipelineStep = "onMessage" | "onBeforeInvoke" | "invoking" | "onAfterInvoke";

export type StreamData =
  | { threadId: string; runId: string; type: "text" | "thinking"; delta: string }
  | { threadId: string; runId: string; type: "tool_call"; toolUseId: string; toolName: string; input: unknown }
  | { threadId: string; runId: string; type: "tool_result"; toolUseId: string; content: unknown; isError: boolean };

export type PipelineErrorCode =
  | "aborted"
  | "timeout"
  | "rate_limited"
  | "overloaded"
  | "upstream_error"
  | "invalid_request"
  | "interrupted"
  | "internal";

export interface PipelineErrorData {
  threadId: string;
  runId: string;
  code: PipelineErrorCode | string;
  message: string;
  retryable: boolean;
}

export type TaskEventName =
  | "task:created"
  | "task:stream"
  | "task:progress"
  | "task:evaluated"
  | "task:validated"
  | "task:failed"
  | "task:checkin";

export interface TaskEventData {
  threadId: string;
  task: Task;
  iteration?: number;
  feedback?: string;
  accepted?: boolean;
  [key: string]: unknown;
}

interface Frame<E extends string, D> {
  event: E;
  data: D;
  timestamp: number;
  /** Present on broadcast events; absent on per-socket frames (ready, pong, error). */
  seq?: number;
}

export type ServerFrame =
  | Frame<"ready", { lastSeq: number; running: string | null }>
  | Frame<"pong", Record<string, unknown>>
  | Frame<"error", { code: string; message: string }>
  | Frame<"chat:message", { threadId: string; message: Message }>
  | Frame<"pipeline:start", { threadId: string; runId: string; messageId: string }>
  | Frame<"pipeline:step", { threadId: string; runId: string; step: PipelineStep | string; detail?: string; usage?: Usage }>
  | Frame<"pipeline:stream", StreamData>
  | Frame<"pipeline:complete", { threadId: string; runId: string; commandsHandled: string[]; durationMs: number }>
  | Frame<"pipeline:error", PipelineErrorData>
  | Frame<"thread:updated", { threadId: string; thread: Thread }>
  | Frame<"thread:notification", { threadId: string; message?: Message; [key: string]: unknown }>
  | Frame<TaskEventName, TaskEventData>;

export type ClientFrame = { type: "ping" } | { type: "stop" };

export type ConnectionState = "connecting" | "open" | "closed";
