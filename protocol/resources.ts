// The resources of PROTOCOL.md beyond the conversation, as they travel: projects, tasks, schedules,
// artifacts, shares, runs and their usage, models, plugins, context files, search results.
import type { Message, Role, TaskStatus } from "./shapes";

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
  /** Its text's extraction and indexing (PROTOCOL.md, "Knowledge"); `error` says why it failed. */
  status: KnowledgeStatus;
  error?: string;
  /** A PDF's pages, a workbook's sheets or a deck's slides. */
  pages?: number;
  /** The passages its text was cut into for retrieval. */
  passages?: number;
}

export const KNOWLEDGE_STATUSES = ["processing", "ready", "failed"] as const;
export type KnowledgeStatus = (typeof KNOWLEDGE_STATUSES)[number];

/** Where a passage is in its file: a PDF's page, a spreadsheet's sheet and row, a deck's slide, else its heading. */
export type PassageLocation = { page: number } | { sheet: string; row: number } | { slide: number } | { heading: string };

/** What retrieval gives for a question (GET /api/projects/:projectId/search). */
export interface KnowledgeResult {
  fileId: string;
  name: string;
  location: PassageLocation;
  text: string;
  /** Higher is better (BM25, negated). */
  score: number;
}

/**
 * A passage an answer cites (its metadata.citations). Additions: `projectId` names the project whose
 * file it is; a long attachment's passage has `threadId` instead (and `projectId` "").
 */
export interface DocumentCitation {
  projectId: string;
  threadId?: string;
  fileId: string;
  name: string;
  location: PassageLocation;
  citedText: string;
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
  /**
   * The newest version of the Messages API's code execution tool the model takes
   * (`code_execution_20250825` or later), or null when it takes none: the catalog's word.
   */
  codeExecution: CodeExecutionVersion | null;
}

/** A file the model's code wrote in a thread (PROTOCOL.md, "Code execution"), kept in R2. */
export interface ProducedFile {
  id: string;
  threadId: string;
  runId: string;
  name: string;
  mediaType: string;
  bytes: number;
  createdAt: number;
}

/** The code execution tool's versions this app offers (each runs bash and edits files). */
export const CODE_EXECUTION_VERSIONS = ["code_execution_20250825", "code_execution_20260120", "code_execution_20260521"] as const;
export type CodeExecutionVersion = (typeof CODE_EXECUTION_VERSIONS)[number];

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
