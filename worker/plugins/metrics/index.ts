import { agentRuns, metrics } from "../../db/schema";
import type { PluginDefinition } from "../contract";
import { costUsd } from "./prices";

/** Per run: an agent_runs row and its metric rows (tokens, cost, duration), one D1 batch. */
export const metricsPlugin: PluginDefinition = {
  name: "metrics",
  version: "1.0.0",
  description: "Records tokens, cost and duration of every run.",
  register(ctx) {
    return {
      async onPipelineComplete(outcome, run) {
        const u = outcome.usage;
        const cost = costUsd(run.model, u);
        const now = Date.now();
        const values: Record<string, number> = {
          input_tokens: u.inputTokens,
          output_tokens: u.outputTokens,
          cache_read_tokens: u.cacheReadTokens,
          cache_write_tokens: u.cacheWriteTokens,
          cost_usd: cost,
          duration_ms: outcome.durationMs,
        };
        await ctx.db.batch([
          ctx.db.insert(agentRuns).values({
            id: run.runId,
            threadId: run.threadId,
            ownerId: run.ownerId,
            taskId: run.taskId ?? null,
            model: run.model,
            ...u,
            costUsd: cost,
            durationMs: outcome.durationMs,
            status: outcome.status === "completed" ? "completed" : (outcome.error?.code ?? "failed"),
            startedAt: run.startedAt,
          }),
          ctx.db.insert(metrics).values(Object.entries(values).map(([name, value]) => ({ runId: run.runId, name, value, createdAt: now }))),
        ]);
      },
    };
  },
};
