// Tasks as the delegation plugin keeps them: created in the parent's object, iterated in the child's,
// reported back to the parent. They live in the owner's object (worker/user/tasks/); every transition
// goes through here, always in one of the two threads' objects.
import type { Task } from "../../../protocol";
import type { TaskRow } from "../../db/schema";
import { toTask } from "../../db/shapes";
import { configOf } from "../../env";
import { newId } from "../../lib/ids";
import type { PluginContext } from "../contract";

export type TaskPorts = Pick<PluginContext, "env" | "owner" | "broadcast" | "sendToThread" | "createThread" | "thread" | "model">;

export interface Limits {
  maxIterations: number;
  maxDepth: number;
  maxConcurrentTasks: number;
  costCapUsd: number;
}

export interface DelegateRequest {
  prompt: string;
  model?: string;
  maxIterations?: number;
}

export interface Delegator {
  threadId: string;
  ownerId: string;
  model: string;
}

export const isTerminal = (status: Task["status"]) => status === "completed" || status === "failed" || status === "cancelled";

export async function loadTask(ports: Pick<TaskPorts, "owner">, id: string): Promise<TaskRow | null> {
  return ports.owner.tasks.get(id);
}

export async function taskOfThread(ports: Pick<TaskPorts, "owner">, threadId: string): Promise<TaskRow | null> {
  return ports.owner.tasks.ofThread(threadId);
}

export async function updateTask(ports: Pick<TaskPorts, "owner">, id: string, patch: Partial<TaskRow>): Promise<Task> {
  const row = await ports.owner.tasks.update(id, patch);
  if (!row) throw new Error(`The task ${id} is gone`);
  return toTask(row);
}

export function iterationPrompt(task: Pick<Task, "prompt" | "maxIterations">, iteration: number, feedback?: string): string {
  if (iteration === 1 || !feedback) return task.prompt;
  return (
    `Your previous result was not accepted (iteration ${iteration - 1} of ${task.maxIterations}).\n\n` +
    `Feedback: ${feedback}\n\nAddress the feedback and give your complete result again.`
  );
}

type Refused = { ok: false; reason: string };

/** What a delegation asks, checked: its prompt, its model (one the deployment offers), its depth. */
async function checked(ports: TaskPorts, from: Delegator, req: DelegateRequest, limits: Limits): Promise<Refused | { ok: true; prompt: string; model: string; depth: number }> {
  const prompt = req.prompt.trim();
  if (!prompt) return { ok: false, reason: "A delegation needs a prompt" };
  const parentTask = await taskOfThread(ports, from.threadId);
  const depth = (parentTask?.depth ?? 0) + 1;
  if (depth > limits.maxDepth) return { ok: false, reason: `Delegation depth limit reached (${limits.maxDepth})` };
  if (req.model !== undefined && !(await ports.model.offers(req.model))) {
    return { ok: false, reason: `Unknown model ${JSON.stringify(req.model.slice(0, 100))}: a task may use only the deployment's models` };
  }
  return { ok: true, prompt, model: req.model ?? from.model, depth };
}

/** A new task's row, with the id of the thread it will run in. */
function taskRow(from: Delegator, task: { prompt: string; model: string; depth: number }, maxIterations: number, now: number): TaskRow {
  return {
    id: newId("task", now),
    ownerId: from.ownerId,
    threadId: newId("thr", now),
    parentThreadId: from.threadId,
    status: "pending",
    ...task,
    result: null,
    verdict: null,
    maxIterations,
    currentIteration: 1,
    costUsd: 0,
    createdAt: now,
    updatedAt: now,
  };
}

/** Creates the task thread and its task, then starts the first iteration in the child's object. */
export async function delegate(
  ports: TaskPorts,
  onCreated: (task: Task) => Promise<void>,
  from: Delegator,
  req: DelegateRequest,
  limits: Limits,
): Promise<Refused | { ok: true; task: Task }> {
  const asked = await checked(ports, from, req, limits);
  if (!asked.ok) return asked;
  const { prompt, model, depth } = asked;
  // The setting is a ceiling: a request may ask for fewer iterations, never more.
  const row = taskRow(from, { prompt, model, depth }, Math.min(Math.max(req.maxIterations ?? limits.maxIterations, 1), limits.maxIterations), Date.now());
  // The task is counted against the bounds (and kept) before its thread exists: a refused one leaves none.
  const perDay = configOf(ports.env).userTasksPerDay;
  const kept = await ports.owner.tasks.create(row, { perThread: limits.maxConcurrentTasks, perDay });
  if (!kept.ok) {
    const reason = kept.bound === "thread" ? `Too many tasks in progress for this thread (limit ${limits.maxConcurrentTasks})` : `Daily task limit reached (${perDay} a day); it resets at 00:00 UTC`;
    return { ok: false, reason };
  }
  const name = `Task: ${prompt.length > 60 ? `${prompt.slice(0, 60)}…` : prompt}`;
  await ports.createThread({ id: row.threadId, ownerId: from.ownerId, name, kind: "task", model, parentThreadId: from.threadId, source: "delegation" });
  const task = toTask(row);
  await onCreated(task);
  await ports.broadcast(from.threadId, "task:created", { threadId: from.threadId, task });
  await ports.sendToThread(row.threadId, iterationPrompt(task, 1), { role: "user", source: "delegation", taskId: task.id });
  return { ok: true, task };
}

/** Tells the parent thread how a task ended; `react` also runs the parent's agent on the news. */
export async function notifyParent(ports: TaskPorts, task: Task, react: boolean): Promise<void> {
  if (!task.parentThreadId) return;
  const head = `[Task ${task.id} ${task.status} after ${task.currentIteration} iteration(s), in thread ${task.threadId}]`;
  const body = task.status === "completed" ? `Result:\n\n${task.result ?? ""}` : `Reason: ${task.result ?? task.status}`;
  const message = await ports.sendToThread(task.parentThreadId, `${head}\n\n${body}`, {
    role: "system",
    source: "delegation",
    run: react,
    metadata: {
      type: "cross-thread-notification",
      sourceThreadId: task.threadId,
      taskId: task.id,
      status: task.status,
      iterations: task.currentIteration,
    },
  });
  await ports.broadcast(task.parentThreadId, "thread:notification", {
    threadId: task.parentThreadId,
    sourceThreadId: task.threadId,
    taskId: task.id,
    status: task.status,
    message,
  });
}

/** Ends a task for good (completed, failed or cancelled), on both threads; runs in the task's thread. */
export async function finishTask(
  ports: TaskPorts,
  task: Pick<Task, "id">,
  outcome: { status: "completed" | "failed" | "cancelled"; result: string; event: "task:validated" | "task:failed" },
  react: boolean,
): Promise<Task> {
  const done = await updateTask(ports, task.id, { status: outcome.status, result: outcome.result });
  ports.thread.setStatus(outcome.status === "completed" ? "completed" : "failed");
  for (const threadId of [done.parentThreadId, done.threadId]) {
    if (threadId) await ports.broadcast(threadId, outcome.event, { threadId, task: done });
  }
  await notifyParent(ports, done, react);
  return done;
}
