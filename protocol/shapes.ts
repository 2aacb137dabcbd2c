// The conversation of PROTOCOL.md as it travels: threads, messages, their files, metadata and usage;
// declared here once, for the Worker and the web app. The other resources are in resources.ts.
import type { CodeRun } from "./code-activity";
import type { DocumentCitation } from "./resources";
import type { PendingApproval } from "./mcp";

/** The kinds POST /api/threads makes; an "api" thread is made by the compatible endpoints alone. */
export const CREATED_THREAD_KINDS = ["general", "primary", "task", "cron"] as const;
export const THREAD_KINDS = [...CREATED_THREAD_KINDS, "api"] as const;
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
  /**
   * Whether the model may run code here (the `code` plugin; PROTOCOL.md, "Code execution"): false
   * only when the thread's settings turned it off; absent, the deployment's default.
   */
  codeExecution?: boolean;
  /** Tool calls of this thread's run waiting for the user's approval (the sidebar's badge). */
  pendingApprovals?: PendingApproval[];
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Server tools the model used (web_search, web_fetch requests, code_execution runs), by tool name; absent when none. */
  serverToolUses?: Record<string, number>;
  /** The code's container time billed for the run (at least 300 s where code ran); absent when none. */
  containerSeconds?: number;
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
  /** An answer whose code ran: each run's code, output and files (code-activity.ts). */
  codeRuns?: CodeRun[];
  /** The project passages an answer cites (PROTOCOL.md, "Knowledge"). */
  citations?: DocumentCitation[];
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
  /** A research started in this thread: its card stands here (GET .../research/:researchId). */
  researchId?: string;
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
