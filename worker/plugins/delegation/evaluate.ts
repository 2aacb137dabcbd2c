// After each iteration of a task, in the task thread's object: the validators judge its result, then
// the task is accepted, iterated again with their feedback, or given up.
import type { Task } from "../../../protocol";
import type { TaskRow } from "../../db/schema";
import { costUsd } from "../../invoker/prices";
import type { PluginContext, RunInfo, RunOutcome, TaskVerdict } from "../contract";
import { finishTask, isTerminal, iterationPrompt, loadTask, updateTask, type Limits } from "./tasks";

type Ctx = PluginContext<Limits>;

/** An iteration cut off by a restart is run again rather than counted, this many times at most. */
const MAX_INTERRUPTIONS = 2;

export async function evaluateIteration(ctx: Ctx, outcome: RunOutcome, run: RunInfo): Promise<void> {
  const row = await loadTask(ctx, run.taskId!);
  if (!row || isTerminal(row.status)) return; // cancelled meanwhile: nothing more to do
  const spent = row.costUsd + costUsd(run.model, outcome.usage);
  const iteration = row.currentIteration;
  if (outcome.error?.code === "interrupted" && (await rerunInterrupted(ctx, row, spent, run))) return;
  if (outcome.error?.code === "rate_limited" && !outcome.error.retryable) {
    // The owner's daily spend cap: every further iteration would be refused the same way.
    await failTask(ctx, await updateTask(ctx, row.id, { costUsd: spent }), outcome.error.message);
    return;
  }
  let task = await updateTask(ctx, row.id, { costUsd: spent, status: "evaluating" });
  const result = outcome.result?.output ?? "";
  const verdict = await judge(ctx, task, outcome, result);
  task = await recordVerdict(ctx, task, verdict, iteration);
  if (verdict.accepted) {
    await finishTask(ctx, task, { status: "completed", result, event: "task:validated" }, true);
    return;
  }
  const feedback = verdict.feedback;
  const reason =
    spent > ctx.settings.costCapUsd
      ? `Cost cap of $${ctx.settings.costCapUsd} reached ($${spent.toFixed(4)} spent). Last feedback: ${feedback}`
      : iteration >= task.maxIterations
        ? `No accepted result after ${iteration} iteration(s). Last feedback: ${feedback}`
        : null;
  if (reason) await failTask(ctx, task, reason);
  else await iterateAgain(ctx, task, iteration, feedback);
}

/**
 * The object restarted mid-iteration: the same iteration runs again, not counted as a try, unless it
 * was cut off too often already (false: evaluate it as it ended).
 */
async function rerunInterrupted(ctx: Ctx, row: TaskRow, spent: number, run: RunInfo): Promise<boolean> {
  const interruptions = Number(run.message.metadata.interruptions ?? 0) + 1;
  if (interruptions > MAX_INTERRUPTIONS) return false;
  await updateTask(ctx, row.id, { costUsd: spent, status: "running" });
  await ctx.sendToThread(run.threadId, run.message.content, {
    role: "user",
    source: "delegation",
    taskId: row.id,
    metadata: { interruptions },
  });
  return true;
}

/** A failed run or an empty result is rejected here; anything else goes to every plugin's validation. */
async function judge(ctx: Ctx, task: Task, outcome: RunOutcome, result: string): Promise<TaskVerdict> {
  if (outcome.status === "failed") return { accepted: false, feedback: `The run failed: ${outcome.error?.message}`, plugin: "delegation" };
  if (!result.trim()) return { accepted: false, feedback: "The result was empty.", plugin: "delegation" };
  return ctx.tasks.validate(task, result);
}

/** The verdict as the task's card shows it (who judged, a rejection's feedback), kept on the task. */
async function recordVerdict(ctx: Ctx, task: Task, verdict: TaskVerdict, iteration: number): Promise<Task> {
  const shown = verdict.accepted
    ? { accepted: true, ...(verdict.by && { by: verdict.by }) }
    : { accepted: false, feedback: verdict.feedback, by: verdict.by ?? verdict.plugin };
  const judged = await updateTask(ctx, task.id, { verdict: { ...shown, iteration, at: Date.now() } });
  for (const threadId of [task.parentThreadId!, judged.threadId]) {
    await ctx.broadcast(threadId, "task:evaluated", { threadId, task: judged, ...shown });
  }
  return judged;
}

async function failTask(ctx: Ctx, task: Task, reason: string): Promise<void> {
  await ctx.tasks.failed(task, reason);
  await finishTask(ctx, task, { status: "failed", result: reason, event: "task:failed" }, true);
}

/** The next iteration, in the task's thread, with the feedback it has to address. */
async function iterateAgain(ctx: Ctx, task: Task, iteration: number, feedback: string): Promise<void> {
  const next = await updateTask(ctx, task.id, { currentIteration: iteration + 1, status: "running" });
  for (const threadId of [task.parentThreadId!, next.threadId]) {
    await ctx.broadcast(threadId, "task:progress", { threadId, task: next, iteration, feedback });
  }
  await ctx.sendToThread(next.threadId, iterationPrompt(next, iteration + 1, feedback), {
    role: "user",
    source: "delegation",
    taskId: next.id,
  });
}
