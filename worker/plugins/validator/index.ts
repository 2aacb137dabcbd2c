// The validator: before a delegated task's result counts, a (small, by default) model judges it against
// the task's prompt. A rejection is thrown, so its feedback goes into the task's next iteration; the
// verdict names its judge for the task's card. Under the offline model a fixed rule judges instead.
import { z } from "zod";
import type { Task, Usage } from "../../../protocol";
import { costUsd } from "../../invoker/prices";
import { newId } from "../../lib/ids";
import type { PluginContext, PluginDefinition } from "../contract";
import { DEFAULT_INSTRUCTIONS, offlineVerdict, parseVerdict, verdictPrompt, type Verdict } from "./verdict";

const settings = z.object({
  model: z.string().min(1).max(100).default("claude-haiku-4-5"),
  instructions: z.string().trim().min(1).max(8_000).default(DEFAULT_INSTRUCTIONS),
});
type Settings = z.infer<typeof settings>;

/** Room for a verdict and a few sentences of feedback. */
const MAX_TOKENS = 400;
export const OFFLINE_BY = "validator (offline rule)";

/** Accepts (answering who judged) or throws the rejection, its feedback as the message. */
function judged(verdict: Verdict, by: string): string {
  if (verdict.accepted) return by;
  throw Object.assign(new Error(verdict.feedback), { by });
}

/** The verdict's cost, as a run of its own on the task thread: metrics and the spend cap count it. */
function bill(ctx: PluginContext<Settings>, task: Task, model: string, usage: Usage, startedAt: number): void {
  const ownerId = ctx.thread.get()?.ownerId;
  if (!ownerId) return ctx.logger.warn("validator: no thread to bill the verdict to", { taskId: task.id });
  ctx.thread.usage({
    id: newId("run"),
    threadId: task.threadId,
    ownerId,
    taskId: task.id,
    model,
    ...usage,
    costUsd: costUsd(model, usage),
    durationMs: Date.now() - startedAt,
    status: "validator",
    startedAt,
  });
}

export const validatorPlugin: PluginDefinition<Settings> = {
  name: "validator",
  version: "1.0.0",
  description: "Judges a delegated task's result against its prompt with a model; a rejection's feedback goes into the next iteration.",
  settings,
  // A model call: longer than the default hook bound, well inside delegation's wait for validators.
  hookTimeoutMs: { onTaskComplete: 120_000 },
  register(ctx) {
    return {
      async onTaskComplete(task, result) {
        if (ctx.model.offline) return judged(offlineVerdict(result), OFFLINE_BY);
        const { model, instructions } = ctx.settings;
        const by = `validator (${model})`;
        const startedAt = Date.now();
        let answer: string;
        try {
          const { text, usage } = await ctx.model.ask({ model, system: instructions, prompt: verdictPrompt(task.prompt, result), maxTokens: MAX_TOKENS });
          bill(ctx, task, model, usage, startedAt);
          answer = text;
        } catch (err) {
          // Fail open, like a validator that times out: a fault of the judge is no fault of the result.
          ctx.logger.warn("validator: the model call failed; accepting", { taskId: task.id, model, error: err instanceof Error ? err.message : String(err) });
          return `${by}: not judged (the model call failed), accepted`;
        }
        const verdict = parseVerdict(answer);
        if (!verdict) {
          // Also open: a judge that rambles must not keep a task iterating (maxIterations bounds it anyway).
          ctx.logger.warn("validator: no verdict in the answer; accepting", { taskId: task.id, model, answer: answer.slice(0, 200) });
          return `${by}: unclear answer, accepted`;
        }
        return judged(verdict, by);
      },
    };
  },
};
