// The innate writes of a run (the seed's "Database Writes Per Message" that belong to the core):
// the assistant's text message and the thread's sessionId, lastActivity and status, in one batch.
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { messages, threads } from "../db/schema";
import { toMessage, type Message, type Thread } from "../db/shapes";
import type { InvokeResult } from "../invoker/types";
import { newId, type MonotonicClock } from "../lib/ids";
import type { RunInfo } from "../plugins/contract";

export interface PersistDeps {
  db: Db;
  clock: MonotonicClock;
  broadcast(event: string, data: Record<string, unknown>): void;
}

export function assistantMetadata(run: RunInfo, result: InvokeResult): Record<string, unknown> {
  return { runId: run.runId, usage: result.usage, durationMs: result.durationMs, stopReason: result.stopReason, ...(run.taskId ? { taskId: run.taskId } : {}) };
}

/** The innate writes of a run, in one D1 batch: the assistant's text and the thread's activity. */
export async function persistRun(
  deps: PersistDeps,
  run: RunInfo,
  output: string,
  opts: { sessionId?: string; metadata: Record<string, unknown> },
): Promise<{ assistant?: Message; thread: Thread }> {
  const now = deps.clock.now();
  const threadPatch: Partial<typeof threads.$inferInsert> = { lastActivity: now, updatedAt: now };
  if (opts.sessionId && opts.sessionId !== run.thread.sessionId) threadPatch.sessionId = opts.sessionId;
  if (run.thread.status === "open") threadPatch.status = "active";
  const thread: Thread = { ...run.thread, ...threadPatch } as Thread;
  const updateThread = deps.db.update(threads).set(threadPatch).where(eq(threads.id, run.threadId));
  if (!output) {
    await updateThread;
    return { thread };
  }
  const row = {
    id: newId("msg", now),
    threadId: run.threadId,
    role: "assistant" as const,
    kind: "text" as const,
    source: "assistant",
    content: output,
    model: run.model,
    metadata: opts.metadata,
    clientMessageId: null,
    createdAt: now,
  };
  await deps.db.batch([deps.db.insert(messages).values(row), updateThread]);
  return { assistant: toMessage(row), thread };
}

/** A thread's first run makes it active; clients hear it before the run's last event. */
export function announceStatus(deps: PersistDeps, run: RunInfo, thread: Thread | undefined) {
  if (thread && thread.status !== run.thread.status) deps.broadcast("thread:updated", { threadId: run.threadId, thread });
}

