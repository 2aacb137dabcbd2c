// A run as one Analytics Engine data point. The columns are positional (blob1.., double1..), so their
// order is the dataset's schema: append, never reorder. docs/scale.md queries them by these names.
import type { UsageRow } from "../ports";

/** The blobs, in order: who ran what, and how it ended. */
export const RUN_BLOBS = ["owner", "model", "status", "thread", "run"] as const;
/** The doubles, in order: what the run used and cost. */
export const RUN_DOUBLES = ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd", "duration_ms", "web_search_requests", "web_fetch_requests", "code_runs", "container_seconds"] as const;

export function runDataPoint(run: UsageRow, serverToolUses?: Record<string, number>, containerSeconds?: number): AnalyticsEngineDataPoint {
  return {
    // Sampling keeps each user's points together (Analytics Engine samples by index).
    indexes: [run.ownerId],
    blobs: [run.ownerId, run.model, run.status, run.threadId, run.id],
    doubles: [
      run.inputTokens ?? 0,
      run.outputTokens ?? 0,
      run.cacheReadTokens ?? 0,
      run.cacheWriteTokens ?? 0,
      run.costUsd ?? 0,
      run.durationMs ?? 0,
      serverToolUses?.web_search ?? 0,
      serverToolUses?.web_fetch ?? 0,
      serverToolUses?.code_execution ?? 0,
      containerSeconds ?? 0,
    ],
  };
}
