import { costUsd } from "../../invoker/prices";
import type { PluginDefinition } from "../contract";

const METRICS = { inputTokens: "input_tokens", outputTokens: "output_tokens", cacheReadTokens: "cache_read_tokens", cacheWriteTokens: "cache_write_tokens" } as const;

/** Per run: an agent_runs row and its metric rows (tokens, cost, duration), with the thread's flush. */
export const metricsPlugin: PluginDefinition = {
  name: "metrics",
  version: "2.0.0",
  description: "Records tokens, cost and duration of every run.",
  register(ctx) {
    return {
      onPipelineComplete(outcome, run) {
        const u = outcome.usage;
        const cost = costUsd(run.model, u);
        const now = Date.now();
        ctx.thread.mirror("agent_runs", {
          id: run.runId,
          threadId: run.threadId,
          ownerId: run.ownerId,
          taskId: run.taskId ?? null,
          model: run.model,
          inputTokens: u.inputTokens,
          outputTokens: u.outputTokens,
          cacheReadTokens: u.cacheReadTokens,
          cacheWriteTokens: u.cacheWriteTokens,
          costUsd: cost,
          durationMs: outcome.durationMs,
          status: outcome.status === "completed" ? "completed" : (outcome.error?.code ?? "failed"),
          startedAt: run.startedAt,
        });
        const values: Record<string, number> = { cost_usd: cost, duration_ms: outcome.durationMs };
        for (const [field, name] of Object.entries(METRICS)) values[name] = u[field as keyof typeof METRICS];
        for (const [tool, n] of Object.entries(u.serverToolUses ?? {})) values[`${tool}_requests`] = n;
        for (const [name, value] of Object.entries(values)) ctx.thread.mirror("metrics", { runId: run.runId, name, value, createdAt: now });
      },
    };
  },
};
