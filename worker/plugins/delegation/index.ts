// Delegation: `/delegate <prompt>` (or the delegate tool) hands a sub-task to a sub-agent in its own
// task thread. Each iteration is a run of the child's pipeline; onTaskComplete hooks validate the
// result (a throw is feedback for the next iteration); the parent hears the outcome and reacts.
import { z } from "zod";
import type { Task } from "../../../protocol";
import { toTask } from "../../db/shapes";
import { costUsd } from "../../invoker/prices";
import type { Command, PluginContext, PluginDefinition, RunInfo, RunOutcome, TaskVerdict } from "../contract";
import { parseDelegateArgs } from "./commands";
import {
  delegate,
  finishTask,
  isTerminal,
  iterationPrompt,
  loadTask,
  taskOfThread,
  updateTask,
  type DelegateRequest,
  type Delegator,
  type Limits,
} from "./tasks";

const settings = z.object({
  maxIterations: z.number().int().min(1).max(20).default(5),
  maxDepth: z.number().int().min(1).max(5).default(2),
  maxConcurrentTasks: z.number().int().min(1).max(20).default(3),
  costCapUsd: z.number().min(0).max(1000).default(2),
});
type Settings = z.infer<typeof settings>;

/** An iteration cut off by a restart is run again rather than counted, this many times at most. */
const MAX_INTERRUPTIONS = 2;

const GUIDE = [
  "## Delegation",
  "To hand a self-contained sub-task to a sub-agent, write a line of its own: `/delegate <complete instructions>`",
  "(optionally ending with `model=<model>` or `maxIterations=<n>`). The sub-agent works in its own task thread;",
  "you will be told its result when it is done.",
].join("\n");
const TASK_GUIDE = "You are working on a delegated task. To report progress to the thread that delegated it, write a line `/checkin <message>`.";

/** The thread that delegates: the tool runs in its object, so its model is at hand. */
function delegatorOf(ctx: PluginContext<Settings>, threadId: string, ownerId: string): Delegator {
  return { threadId, ownerId, model: ctx.thread.get()?.model ?? "" };
}

async function checkin(ctx: PluginContext<Settings>, threadId: string, taskId: string | undefined, message: string) {
  const row = taskId ? await loadTask(ctx, taskId) : await taskOfThread(ctx, threadId);
  if (!row?.parentThreadId) return null;
  await ctx.sendToThread(row.parentThreadId, `[Check-in from task thread ${row.threadId}]: ${message}`, {
    role: "system",
    source: "delegation",
    run: false,
    metadata: { type: "task-checkin", taskId: row.id, sourceThreadId: row.threadId },
  });
  await ctx.broadcast(row.parentThreadId, "task:checkin", { threadId: row.parentThreadId, task: toTask(row), message });
  return row;
}

export const delegationPlugin: PluginDefinition<Settings> = {
  name: "delegation",
  version: "1.0.0",
  description: "/delegate and /checkin: sub-agents in task threads, validated before their results count.",
  settings,
  // onPipelineComplete waits for every validator, which may itself call a model.
  hookTimeoutMs: { onPipelineComplete: 300_000 },
  tools: [
    {
      name: "delegate",
      description:
        "Delegate a self-contained sub-task to a sub-agent working in its own task thread. You are told the result when it is done.",
      inputSchema: {
        type: "object",
        properties: {
          prompt: { type: "string", description: "Complete instructions for the sub-agent" },
          model: { type: "string" },
          maxIterations: { type: "integer", minimum: 1, maximum: 20 },
        },
        required: ["prompt"],
      },
      async handler(input: DelegateRequest, call, ctx) {
        const from = delegatorOf(ctx, call.threadId, call.ownerId);
        const out = await delegate(ctx, ctx.tasks.created, from, input, ctx.settings as Limits);
        if (!out.ok) return { content: out.reason, isError: true };
        return `Delegated as task ${out.task.id} in thread ${out.task.threadId}; you will be told the result.`;
      },
    },
    {
      name: "checkin",
      description: "From a delegated task: report progress to the thread that delegated it.",
      inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
      async handler(input: { message: string }, call, ctx) {
        const row = await checkin(ctx, call.threadId, call.taskId, input.message);
        return row ? "Check-in sent." : { content: "This thread is not a delegated task.", isError: true };
      },
    },
  ],
  register(ctx) {
    // The task of the run in progress in this object, kept current for task:stream.
    let current: { runId: string; task: Task; parent: string } | null = null;
    let forwarding: Promise<void> = Promise.resolve();

    async function onCommand(command: Command, run: RunInfo): Promise<boolean> {
      if (command.name === "delegate" || command.name === "re-delegate") {
        const from = { threadId: run.threadId, ownerId: run.ownerId, model: run.model };
        const out = await delegate(ctx, ctx.tasks.created, from, parseDelegateArgs(command.args), ctx.settings);
        if (!out.ok) {
          await ctx.sendToThread(run.threadId, `Delegation refused: ${out.reason}`, { role: "system", source: "delegation", run: false });
        }
        return true;
      }
      if (command.name === "checkin") return (await checkin(ctx, run.threadId, run.taskId, command.args)) !== null;
      return false;
    }

    /** After an iteration: validate, then accept, iterate again, or give up. */
    async function evaluate(outcome: RunOutcome, run: RunInfo): Promise<void> {
      const row = await loadTask(ctx, run.taskId!);
      if (!row || isTerminal(row.status)) return; // cancelled meanwhile: nothing more to do
      const spent = row.costUsd + costUsd(run.model, outcome.usage);
      const iteration = row.currentIteration;
      if (outcome.error?.code === "interrupted") {
        // The object restarted mid-iteration: the same iteration runs again, not counted as a try.
        const interruptions = Number(run.message.metadata.interruptions ?? 0) + 1;
        if (interruptions <= MAX_INTERRUPTIONS) {
          await updateTask(ctx, row.id, { costUsd: spent, status: "running" });
          await ctx.sendToThread(run.threadId, run.message.content, {
            role: "user",
            source: "delegation",
            taskId: row.id,
            metadata: { interruptions },
          });
          return;
        }
      }
      if (outcome.error?.code === "rate_limited" && !outcome.error.retryable) {
        // The owner's daily spend cap: every further iteration would be refused the same way.
        const reason = outcome.error.message;
        const capped = await updateTask(ctx, row.id, { costUsd: spent });
        await ctx.tasks.failed(capped, reason);
        await finishTask(ctx, capped, { status: "failed", result: reason, event: "task:failed" }, true);
        return;
      }
      let task = await updateTask(ctx, row.id, { costUsd: spent, status: "evaluating" });
      const result = outcome.result?.output ?? "";
      let verdict: TaskVerdict;
      if (outcome.status === "failed") verdict = { accepted: false, feedback: `The run failed: ${outcome.error?.message}`, plugin: "delegation" };
      else if (!result.trim()) verdict = { accepted: false, feedback: "The result was empty.", plugin: "delegation" };
      else verdict = await ctx.tasks.validate(task, result);
      const parent = task.parentThreadId!;
      // The verdict as the task's card shows it (who judged, a rejection's feedback), kept on the task.
      const shown = verdict.accepted
        ? { accepted: true, ...(verdict.by && { by: verdict.by }) }
        : { accepted: false, feedback: verdict.feedback, by: verdict.by ?? verdict.plugin };
      task = await updateTask(ctx, task.id, { verdict: { ...shown, iteration, at: Date.now() } });
      for (const threadId of [parent, task.threadId]) {
        await ctx.broadcast(threadId, "task:evaluated", { threadId, task, ...shown });
      }
      if (verdict.accepted) {
        await finishTask(ctx, task, { status: "completed", result, event: "task:validated" }, true);
        return;
      }
      const feedback = verdict.feedback;
      if (spent > ctx.settings.costCapUsd) {
        const reason = `Cost cap of $${ctx.settings.costCapUsd} reached ($${spent.toFixed(4)} spent). Last feedback: ${feedback}`;
        await ctx.tasks.failed(task, reason);
        await finishTask(ctx, task, { status: "failed", result: reason, event: "task:failed" }, true);
        return;
      }
      if (iteration >= task.maxIterations) {
        const reason = `No accepted result after ${iteration} iteration(s). Last feedback: ${feedback}`;
        await ctx.tasks.failed(task, reason);
        await finishTask(ctx, task, { status: "failed", result: reason, event: "task:failed" }, true);
        return;
      }
      task = await updateTask(ctx, task.id, { currentIteration: iteration + 1, status: "running" });
      for (const threadId of [parent, task.threadId]) {
        await ctx.broadcast(threadId, "task:progress", { threadId, task, iteration, feedback });
      }
      await ctx.sendToThread(task.threadId, iterationPrompt(task, iteration + 1, feedback), {
        role: "user",
        source: "delegation",
        taskId: task.id,
      });
    }

    return {
      async onBeforeInvoke(prompt, run) {
        const guide = run.thread.kind === "task" ? `${GUIDE}\n\n${TASK_GUIDE}` : GUIDE;
        return { ...prompt, system: prompt.system ? `${prompt.system}\n\n---\n\n${guide}` : guide };
      },
      async onPipelineStart(run) {
        if (!run.taskId) return;
        const row = await loadTask(ctx, run.taskId);
        if (!row?.parentThreadId || isTerminal(row.status)) return;
        const task = row.status === "pending" ? await updateTask(ctx, row.id, { status: "running" }) : toTask(row);
        current = { runId: run.runId, task, parent: row.parentThreadId };
      },
      onBroadcast(frame) {
        // The child's run, mirrored to the parent's sockets as task:stream, in order.
        if (!current || !("runId" in frame.data) || frame.data.runId !== current.runId) return;
        const { parent, task } = current;
        const data = { threadId: parent, task, event: frame.event, data: frame.data };
        forwarding = forwarding.then(() => ctx.broadcast(parent, "task:stream", data)).catch((err) => {
          ctx.logger.warn("task:stream forward failed", { error: String(err) });
        });
        if (frame.event === "pipeline:complete" || frame.event === "pipeline:error") current = null;
      },
      onCommand,
      async onPipelineComplete(outcome, run) {
        if (!run.taskId) return;
        await forwarding;
        await evaluate(outcome, run);
      },
      async onTaskCancel(taskId) {
        // In the task's own thread, before the core stops its run: the record, then both threads.
        const row = await loadTask(ctx, taskId);
        if (!row || isTerminal(row.status)) return;
        await finishTask(ctx, row, { status: "cancelled", result: "Cancelled by the user", event: "task:failed" }, false);
      },
    };
  },
};
