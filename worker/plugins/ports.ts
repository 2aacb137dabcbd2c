// What a plugin's context lends it of the world outside its own thread's messages: the thread's
// schedules and artifacts (kept by the thread's object), and the owner's files and tasks (kept by the
// owner's object). Each port checks what the routes check; a plugin names no user.
import type { ArtifactInfo, ArtifactType, ContextFile, Schedule, ScheduleBody, ScheduleStatus } from "../../protocol";
import type { TaskRow } from "../db/schema";

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
