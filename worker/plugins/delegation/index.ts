// Delegation: `/delegate <prompt>` (or the delegate tool) hands a sub-task to a sub-agent in its own
// task thread. Each iteration is a run of the child's pipeline; onTaskComplete hooks validate the
// result (a throw is feedback for the next iteration); the parent hears the outcome and reacts.
import { z } from "zod";
import { toTask } from "../../db/shapes";
import type { Command, PluginContext, PluginDefinition, RunInfo } from "../contract";
import { parseDelegateArgs } from "./commands";
import { evaluateIteration } from "./evaluate";
import { TaskStream } from "./task-stream";
import {
  delegate,
  finishTask,
  isTerminal,
  loadTask,
  taskOfThread,
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

/** `/delegate` (or `/re-delegate`) and `/checkin`; false leaves any other command to other plugins. */
async function runCommand(ctx: PluginContext<Settings>, command: Command, run: RunInfo): Promise<boolean> {
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
    const stream = new TaskStream(ctx);
    return {
      async onBeforeInvoke(prompt, run) {
        const guide = run.thread.kind === "task" ? `${GUIDE}\n\n${TASK_GUIDE}` : GUIDE;
        return { ...prompt, system: prompt.system ? `${prompt.system}\n\n---\n\n${guide}` : guide };
      },
      onPipelineStart: (run) => stream.follow(run),
      onBroadcast: (frame) => stream.forward(frame),
      onCommand: (command, run) => runCommand(ctx, command, run),
      async onPipelineComplete(outcome, run) {
        if (!run.taskId) return;
        // The parent sees the iteration's whole stream before its verdict.
        await stream.drained();
        await evaluateIteration(ctx, outcome, run);
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
