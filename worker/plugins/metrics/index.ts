// Per run: its usage (tokens, cost, duration) for the owner's object, which keeps it and rolls it up
// by day into D1; and, where the deployment binds Analytics Engine (ANALYTICS), one data point for
// dashboards at any scale (docs/scale.md says how to query it).
import { costUsd } from "../../invoker/prices";
import type { PluginDefinition } from "../contract";
import { runDataPoint } from "./data-point";

export const metricsPlugin: PluginDefinition = {
  name: "metrics",
  version: "3.0.0",
  description: "Records tokens, cost and duration of every run.",
  register(ctx) {
    return {
      onPipelineComplete(outcome, run) {
        const u = outcome.usage;
        const usage = {
          id: run.runId,
          threadId: run.threadId,
          ownerId: run.ownerId,
          taskId: run.taskId ?? null,
          model: run.model,
          inputTokens: u.inputTokens,
          outputTokens: u.outputTokens,
          cacheReadTokens: u.cacheReadTokens,
          cacheWriteTokens: u.cacheWriteTokens,
          costUsd: costUsd(run.model, u),
          durationMs: outcome.durationMs,
          status: outcome.status === "completed" ? "completed" : (outcome.error?.code ?? "failed"),
          startedAt: run.startedAt,
        };
        ctx.thread.usage(usage);
        ctx.env.ANALYTICS?.writeDataPoint(runDataPoint(usage, u.serverToolUses, u.containerSeconds));
      },
    };
  },
};
