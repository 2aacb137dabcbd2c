// What a plugin's context lends it: its own thread (with the thread's schedules and artifacts, kept by
// the thread's object), the owner's files and tasks (kept by the owner's object), and the model. Each
// port checks what the routes check; a plugin names no user.
import type { ArtifactInfo, ArtifactType, ContextFile, Message, MessageKind, MessageMetadata, Research, Role, Schedule, ScheduleBody, ScheduleStatus, Thread, Usage } from "../../protocol";
import type { agentRuns, TaskRow } from "../db/schema";
import type { RunProject } from "../lib/run-project";

/** The tool call that writes an artifact: its thread, its run, and the exchange (user message) it answers. */
export interface ArtifactCall {
  threadId: string;
  runId: string;
  messageId: string;
}

/** The thread's schedules, as a plugin makes them: the same checks and the same per-user maximum as the routes. */
export interface SchedulePort {
  /** A schedule; or why not (a bad time, the maximum reached), in words the model can act on. */
  create(body: ScheduleBody & { prompt: string }): Promise<{ ok: true; schedule: Schedule } | { ok: false; reason: string }>;
  list(): Schedule[];
  /** False: no such schedule in this thread. */
  cancel(id: string): Promise<boolean>;
  /** The run a fire started has ended. */
  settle(id: string, status: ScheduleStatus): void;
}

/** The thread's artifacts, as the artifacts plugin writes them: each write a version, in the calling run's exchange. */
export interface ArtifactPort {
  create(call: ArtifactCall, artifact: { title: string; type: ArtifactType; language?: string | null; content: string }): { ok: true; artifact: ArtifactInfo } | { ok: false; reason: string };
  update(call: ArtifactCall, id: string, edit: { content: string } | { old_str: string; new_str: string }): { ok: true; artifact: ArtifactInfo } | { ok: false; reason: string };
  /** The current branch's artifacts, at their latest versions there. */
  list(): ArtifactInfo[];
}

/** The owner's files and tasks, kept by the owner's object (worker/user/), as plugins reach them. */
export interface OwnerPort {
  files: {
    /** Paths that begin with `prefix`, exactly. */
    under(prefix: string): Promise<{ path: string; bytes: number }[]>;
    get(path: string): Promise<ContextFile | null>;
    /** null: it would pass the owner's quota, and nothing is written. */
    put(path: string, content: string): Promise<ContextFile | null>;
    /** The paths that were there. */
    remove(paths: string[]): Promise<string[]>;
  };
  tasks: {
    /** Kept unless its parent has `perThread` tasks in progress or the owner `perDay` today. */
    create(row: TaskRow, bounds: { perThread: number; perDay: number }): Promise<{ ok: true } | { ok: false; bound: "thread" | "day" }>;
    get(id: string): Promise<TaskRow | null>;
    ofThread(threadId: string): Promise<TaskRow | null>;
    update(id: string, patch: Partial<TaskRow>): Promise<TaskRow | null>;
  };
}

/** A message a plugin adds to its thread (activity rows, notices); the core fills in the rest. */
export interface NewMessage {
  role: Role;
  kind: MessageKind;
  content: string;
  model?: string | null;
  metadata?: MessageMetadata;
  /** The input message it belongs with; default: the thread's head. */
  parentId?: string | null;
  /** When it happened, from `ctx.now()` (a row stored later still lists in its place); default: now. */
  createdAt?: number;
}

/** Rows that only D1 keeps (usage), written through the thread's outbox with its other rows. */
/** A run's usage, as the owner's object keeps it. */
export type UsageRow = typeof agentRuns.$inferInsert;

/** The plugin's own thread, as its object lends it: the primary store, local and synchronous. */
export interface ThreadPort {
  id(): string | null;
  /** The thread as stored now, with its owner, and whether a person named it. */
  get(): (Thread & { ownerId: string; named: boolean }) | null;
  /** Sets the thread's status (a task thread that ended); clients hear `thread:updated`. */
  setStatus(status: Thread["status"]): void;
  /** Names the thread (an automatic title: unlike a person's name, a later title may replace it). */
  rename(name: string): void;
  /** Stores a message in the thread (a text one the owner's search gets too); it is not broadcast. */
  addMessage(message: NewMessage): Message;
  /** The text messages of the branch that leads to `beforeMessageId`, oldest first, at most `limit`. */
  history(beforeMessageId: string, limit: number): Pick<Message, "role" | "content">[];
  /** The owner's context files, as step 0 last read them (at most STEP0_FRESH_MS old at a run's start). */
  contextFiles(): ContextFile[];
  /** The thread's project, as step 0 last read it; null when the thread is in none. */
  project(): RunProject | null;
  /** A run's usage, for the owner's object (their usage page, today's spend, D1's day totals). */
  usage(row: UsageRow): void;
  sockets(): WebSocket[];
  schedules: SchedulePort;
  artifacts: ArtifactPort;
  /** Starts a research in this thread (research/driver.ts): its card, then its plan. */
  research: { start(question: string): { ok: true; research: Research } | { ok: false; reason: string } };
}

export interface ModelPort {
  /** True without an API key: the offline stand-in answers, so plugins use a fixed rule instead. */
  offline: boolean;
  ask(req: { model: string; system: string; prompt: string; maxTokens: number }): Promise<{ text: string; usage: Usage }>;
  /** Whether the deployment offers this model (MODELS, else the catalog): a thread may use no other. */
  offers(model: string): Promise<boolean>;
}
