// The public shapes of PROTOCOL.md, made from rows. Nothing outside these fields leaves the Worker
// (an owner id, for one, stays inside).
import type { MessageRow, RunRow, TaskRow, ThreadRow } from "./schema";

export type Thread = ReturnType<typeof toThread>;
export type Message = ReturnType<typeof toMessage>;
export type Task = ReturnType<typeof toTask>;
export type Run = ReturnType<typeof toRun>;

export function toThread(r: ThreadRow) {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    status: r.status,
    model: r.model,
    sessionId: r.sessionId,
    parentThreadId: r.parentThreadId,
    lastActivity: r.lastActivity,
    createdAt: r.createdAt,
  };
}

export function toMessage(r: MessageRow) {
  return {
    id: r.id,
    threadId: r.threadId,
    role: r.role,
    kind: r.kind,
    source: r.source,
    content: r.content,
    model: r.model,
    metadata: r.metadata ?? {},
    clientMessageId: r.clientMessageId,
    createdAt: r.createdAt,
  };
}

export function toTask(r: TaskRow) {
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
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export function toRun(r: RunRow) {
  return {
    id: r.id,
    threadId: r.threadId,
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
