// PROTOCOL.md's shapes, made from D1 rows. Nothing outside these fields leaves the Worker (an owner id,
// for one, stays inside).
import type { Run, Task, Thread } from "../../protocol";
import type { RunRow, TaskRow, ThreadRow } from "./schema";

export function toThread(r: ThreadRow): Thread {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    status: r.status,
    model: r.model,
    sessionId: r.sessionId,
    parentThreadId: r.parentThreadId,
    instructions: r.instructions,
    headId: r.headId,
    lastActivity: r.lastActivity,
    createdAt: r.createdAt,
    projectId: r.projectId,
  };
}

export function toTask(r: TaskRow): Task {
  return {
    id: r.id,
    threadId: r.threadId,
    parentThreadId: r.parentThreadId,
    status: r.status,
    prompt: r.prompt,
    result: r.result,
    model: r.model,
    maxIterations: r.maxIterations,
    currentIteration: r.currentIteration,
    costUsd: r.costUsd,
    verdict: r.verdict ?? null,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** A run, with its thread's name (null once the thread is deleted: its usage stays). */
export function toRun(r: RunRow, threadName: string | null): Run {
  return {
    id: r.id,
    threadId: r.threadId,
    threadName,
    taskId: r.taskId,
    model: r.model,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    cacheReadTokens: r.cacheReadTokens,
    cacheWriteTokens: r.cacheWriteTokens,
    costUsd: r.costUsd,
    durationMs: r.durationMs,
    status: r.status,
    startedAt: r.startedAt,
  };
}
