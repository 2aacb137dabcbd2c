// The resources of PROTOCOL.md as they travel: declared here once, for the Worker and the web app.
import type { PendingApproval } from "./mcp";

export const THREAD_KINDS = ["general", "primary", "task", "cron"] as const;
export const THREAD_STATUSES = ["open", "active", "completed", "failed", "archived"] as const;
export const MESSAGE_ROLES = ["user", "assistant", "system"] as const;
export const MESSAGE_KINDS = ["text", "thinking", "tool_call", "tool_result", "pipeline_step", "status"] as const;
export const TASK_STATUSES = ["pending", "running", "evaluating", "completed", "failed", "cancelled"] as const;

export type ThreadKind = (typeof THREAD_KINDS)[number];
export type ThreadStatus = (typeof THREAD_STATUSES)[number];
export type Role = (typeof MESSAGE_ROLES)[number];
export type MessageKind = (typeof MESSAGE_KINDS)[number];
export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface Thread {
  id: string;
  name: string;
  kind: ThreadKind;
  status: ThreadStatus;
  model: string;
  /** The id of the conversation the thread's object holds for the model; null before the first run. */
  sessionId: string | null;
  parentThreadId: string | null;
  /** The thread's custom instructions, in the system prompt of every run ("" for none). */
  instructions: string;
  /** The last user message of the current branch (null before the first). */
  headId: string | null;
  lastActivity: number;
  createdAt: number;
  /**
   * The user's IANA timezone as their browser sent it with the thread (schedules the model makes are
   * read in it). Answered by the thread's own routes; not in the list.
   */
  timezone?: string;
  /** The project the thread is in (null: none). */
  projectId?: string | null;
  /** The ids of the user's MCP servers this thread does not offer the model (its settings). */
  mcpOff?: string[];
  /** Tool calls of this thread's run waiting for the user's approval (the sidebar's badge). */
  pendingApprovals?: PendingApproval[];
}

/** A project: threads that share instructions, files and memory. */
export interface Project {
  id: string;
  name: string;
  instructions: string;
  createdAt: number;
  updatedAt: number;
}

/** A file of a project (its bytes in R2, under the owner's storage quota). */
export interface ProjectFile {
  id: string;
  projectId: string;
  name: string;
  mediaType: string;
  bytes: number;
  createdAt: number;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Server tools the model used (web_search, web_fetch requests), by tool name; absent when none. */
  serverToolUses?: Record<string, number>;
}

/** Open-ended; these are the fields the project writes (docs/protocol-notes.md). */
/** A page a web search found or a web fetch read. */
export interface WebSource {
  url: string;
  title: string | null;
  /** How old the page is, as the search reports it ("2 days ago"). */
  pageAge?: string | null;
}

/** A source the answer cites for its text (numbered by the web app in order of first use). */
export interface Citation {
  url: string;
  title: string | null;
  citedText: string;
}

/** The web tools of a run (search cards) and the answer's citations, kept with the answer. */
export interface WebActivity {
  /** `error`: the tool's error code ("max_uses_exceeded", "url_not_accessible", …). */
  calls: { toolUseId: string; toolName: string; input: unknown; sources: WebSource[]; error?: string }[];
  /** `at`: the offset in the answer's text where the cited passage ends. */
  citations: (Citation & { at: number })[];
}

export interface MessageMetadata {
  runId?: string;
  /** An answer that used web search or fetch, or cites sources. */
  web?: WebActivity;
  usage?: Usage;
  durationMs?: number;
  stopReason?: string | null;
  aborted?: boolean;
  error?: string;
  interrupted?: boolean;
  code?: string;
  step?: string;
  detail?: string | null;
  toolUseId?: string;
  toolName?: string;
  input?: unknown;
  isError?: boolean;
  taskId?: string;
  /** A schedule's fire: the schedule, and its name as it was (a message badge shows it). */
  scheduleId?: string;
  scheduleName?: string;
  /** Regenerate: the message this one regenerates. */
  regenerates?: string;
  /** A cross-thread notification: "cross-thread-notification"; a check-in: "task-checkin". */
  type?: string;
  sourceThreadId?: string;
  status?: string;
  iterations?: number;
  [key: string]: unknown;
}

export interface Attachment {
  id: string;
  threadId: string;
  name: string;
  mediaType: string;
  bytes: number;
  createdAt: number;
}

export interface Message {
  id: string;
  threadId: string;
  role: Role;
  kind: MessageKind;
  source: string;
  content: string;
  model: string | null;
  metadata: MessageMetadata;
  clientMessageId: string | null;
  /** A user message: the user message before it on its branch; any other: the user message its run answers. */
  parentId: string | null;
  /** On user messages as listed: the user messages with the same parentId, oldest first, itself included. */
  siblings?: string[];
  /** Files sent with a user message, in the order given. */
  attachments?: Attachment[];
  createdAt: number;
}

/** The latest judgement of a task's result, as its card shows it (task:evaluated reports each one). */
export interface TaskVerdict {
  accepted: boolean;
  /** Who judged: "validator (claude-haiku-4-5)", "validator (offline rule)", "delegation". */
  by?: string;
  /** Why a result was rejected (it goes into the next iteration). */
  feedback?: string;
  /** The iteration judged. */
  iteration: number;
  at: number;
}

/**
 * A schedule: its thread's prompt, posted by itself at a time (`at`), every `every` seconds, or on a
 * five-field `cron` expression read in `timezone` (exactly one of the three is set).
 */
export interface Schedule {
  id: string;
  threadId: string;
  /** A short label for lists and message badges (the prompt's start unless one is given). */
  name: string;
  prompt: string;
  at: number | null;
  every: number | null;
  cron: string | null;
  timezone: string;
  enabled: boolean;
  /** Null once a one-time schedule has fired, or while disabled. */
  nextRunAt: number | null;
  lastRunAt: number | null;
  lastStatus: ScheduleStatus | null;
  createdAt: number;
}

export type ScheduleStatus = "completed" | "failed";

export const ARTIFACT_TYPES = ["markdown", "code", "html", "svg", "mermaid"] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

/** An artifact as its latest version on the current branch has it (without content). */
export interface ArtifactInfo {
  id: string;
  title: string;
  type: ArtifactType;
  /** A code artifact's language (for highlighting and the download's extension). */
  language: string | null;
  version: number;
  /** The user message whose exchange made that version. */
  messageId: string;
  updatedAt: number;
}

export interface Artifact extends ArtifactInfo {
  content: string;
  /** Its versions on the current branch, oldest first. */
  versions: { version: number; createdAt: number }[];
}

/** A read-only link to a copy of a thread's branch (its owner's view of it). */
export interface Share {
  id: string;
  threadId: string;
  /** The web app's read-only page of it (/s/:id). */
  url: string;
  createdAt: number;
}

/** A share as anyone with its link reads it: no user ids. */
export interface SharedThread {
  share: { id: string; createdAt: number };
  thread: { name: string };
  /** The branch's text, thinking and tool messages, as they were when it was shared. */
  messages: Message[];
  artifacts: Artifact[];
}

export interface Task {
  id: string;
  threadId: string;
  parentThreadId: string | null;
  status: TaskStatus;
  prompt: string;
  result: string | null;
  model: string | null;
  maxIterations: number;
  currentIteration: number;
  costUsd: number;
  /** The latest verdict on its result; null before the first. */
  verdict: TaskVerdict | null;
  createdAt: number;
  updatedAt: number;
}

export interface Run {
  id: string;
  threadId: string;
  /** The thread's name, or null once the thread is deleted (its usage stays). */
  threadName: string | null;
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

export interface UsageTotals {
  runs: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

export type ThinkingType = "adaptive" | "enabled";

export interface ModelInfo {
  id: string;
  displayName: string;
  contextWindow: number;
  maxOutputTokens: number;
  thinking: ThinkingType[];
  compaction: boolean;
}

export interface PluginInfo {
  name: string;
  version: string;
  description: string;
  enabled: boolean;
  order: number;
  settings: Record<string, unknown>;
  tools: { name: string; description: string }[];
}

export interface ContextFileInfo {
  path: string;
  bytes: number;
  updatedAt: number;
}

export interface ContextFile extends ContextFileInfo {
  content: string;
}

export interface SearchResult {
  threadId: string;
  threadName: string;
  messageId: string;
  /** The message's parentId (for an answer, the user message it answers): the branch to switch to. */
  parentId: string | null;
  role: Role;
  /** Text around the hits, with each hit inside <mark>…</mark> (all other text HTML-escaped). */
  snippet: string;
  createdAt: number;
}
