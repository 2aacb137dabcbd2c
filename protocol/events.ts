// The WebSocket protocol: every broadcast event with its payload, the per-socket frames, and what
// clients may send. `Broadcaster.emit` is typed by EventMap, so a wrong payload does not compile.
import type { ApiErrorCode, RunErrorCode, SocketErrorCode } from "./errors";
import type { CodeOutput } from "./code-activity";
import type { PendingApproval } from "./mcp";
import type { Research } from "./research";
import type { ArtifactInfo, Task } from "./resources";
import type { Citation, Message, TaskStatus, Thread, Usage, WebSource } from "./shapes";

export type PipelineStep = "onMessage" | "onBeforeInvoke" | "invoking" | "compacted" | "onAfterInvoke";

/** What a tool answered (a tool_result, as the model gets it). */
export interface ToolOutcome {
  content: string;
  isError: boolean;
}

/** The names the API gives the assistant's built-in tools (a stream event's `toolName`). */
export const MEMORY_TOOL = "memory";
export const WEB_SEARCH_TOOL = "web_search";
export const WEB_FETCH_TOOL = "web_fetch";

/** The close code of a socket whose credential (an Access JWT) expired: sign in again, then reconnect. */
export const CREDENTIAL_EXPIRED = 4001;

/**
 * What the model produced, as it arrives (pipeline:stream's `type` and its fields). `tool_call` and
 * `tool_result` are the app's tools (plugin tools, memory); `tool_input` is the raw JSON of such a
 * call's input as the model writes it (pieces that concatenate to the input `tool_call` then gives
 * whole: for showing an artifact grow, nothing else relies on it); `server_tool_call` and
 * `server_tool_result` are the tools Anthropic runs (web search, web fetch); `citations` are the
 * sources of the text just streamed, which ends at offset `at` of the run's text.
 */
export type StreamEvent =
  | { type: "text"; delta: string }
  | { type: "thinking"; delta: string }
  | { type: "tool_input"; toolUseId: string; toolName: string; delta: string }
  | { type: "tool_call"; toolUseId: string; toolName: string; input: unknown }
  | ({ type: "tool_result"; toolUseId: string; toolName: string } & ToolOutcome)
  | { type: "server_tool_call"; toolUseId: string; toolName: string; input: unknown }
  | { type: "server_tool_result"; toolUseId: string; toolName: string; sources: WebSource[]; error?: string }
  | { type: "citations"; at: number; citations: Citation[] };

interface RunRef {
  threadId: string;
  runId: string;
}

interface TaskRef {
  threadId: string;
  task: Task;
}

/** Every event broadcast to a thread's sockets, by name. */
export interface EventMap {
  "chat:message": { threadId: string; message: Message };
  "pipeline:start": RunRef & { messageId: string };
  "pipeline:step": RunRef & { step: PipelineStep; detail?: string; usage?: Usage };
  "pipeline:stream": RunRef & StreamEvent;
  "pipeline:complete": RunRef & { commandsHandled: string[]; commandsUnhandled: string[]; durationMs: number };
  "pipeline:error": RunRef & { code: RunErrorCode; message: string; retryable: boolean };
  /** The thread as now stored; after a branch change, also the messages of the new current branch. */
  "thread:updated": { threadId: string; thread: Thread; messages?: Message[] };
  "thread:notification": { threadId: string; sourceThreadId: string; taskId: string; status: TaskStatus; message: Message };
  "task:created": TaskRef;
  "task:stream": TaskRef & { event: string; data: unknown };
  "task:progress": TaskRef & { iteration: number; feedback: string };
  /** `task.verdict` holds the same verdict, for clients that read it later. */
  "task:evaluated": TaskRef & { accepted: boolean; feedback?: string; by?: string };
  "task:validated": TaskRef;
  "task:failed": TaskRef;
  "task:checkin": TaskRef & { message: string };
  /** The model made or changed an artifact (its content is read from the artifact's route). */
  "artifact:updated": { threadId: string; runId: string; artifact: ArtifactInfo };
  /** A schedule posted its prompt: comes before that message's chat:message. */
  "schedule:fired": { threadId: string; scheduleId: string; messageId: string };
  /** The owner's context files changed during a run (the model wrote its memory): pages showing them reload. */
  "context:changed": { threadId: string; paths: string[] };
  /** A tool call waits for the user: POST .../approvals/:toolUseId decides (thread:updated follows). */
  "tool:approval": { threadId: string } & PendingApproval;
  /**
   * The code execution container a run's request used: a new one, the thread's last one again (its
   * files and variables are still there), or a new one because the last had expired. `reason`
   * "branch": new because the thread's last one holds another branch's files and variables. `runId`
   * (an addition) is the run's.
   */
  "code:container": { threadId: string; runId: string; status: "new" | "reused" | "expired"; reason?: "branch" };
  /**
   * A code run ended: its output, and the files it wrote that the thread kept; a file it could not
   * keep (the storage quota, its size, the Files API) is named in `skipped` with the reason.
   */
  "code:output": RunRef & CodeOutput;
  /** A research changed (its status, a sub-question's, its sources, its cost, its report). */
  "research:updated": { threadId: string; research: Research };
}

export type EventName = keyof EventMap;

/** A broadcast event as it goes on the wire: numbered by the thread's seq. */
export type EventFrame<K extends EventName = EventName> = {
  [E in K]: { event: E; data: EventMap[E]; timestamp: number; seq: number };
}[K];

/** Frames for one socket only: no seq, and they use none up. */
export interface SocketFrameMap {
  ready: { lastSeq: number; running: string | null };
  pong: Record<string, never>;
  /** A `send` frame's message was stored (or had been: `duplicate`), as POST messages answers it. */
  accepted: { clientMessageId: string; message: Message; duplicate: boolean };
  /**
   * A frame the object could not take. For a `send`: the code POST would have answered, its
   * clientMessageId, and `retryAfter` (seconds) where POST would send Retry-After.
   */
  error: { code: SocketErrorCode | ApiErrorCode; message: string; clientMessageId?: string; retryAfter?: number };
}

export type SocketFrame = {
  [E in keyof SocketFrameMap]: { event: E; data: SocketFrameMap[E]; timestamp: number };
}[keyof SocketFrameMap];

export type ServerFrame = EventFrame | SocketFrame;

/** A message sent over the thread's open socket: the same as POST messages on that thread. */
export interface SendFrame {
  type: "send";
  content: string;
  clientMessageId: string;
  attachments?: string[];
}

/** What a client may send on its socket. */
export type ClientFrame = { type: "ping" } | { type: "stop" } | SendFrame;
