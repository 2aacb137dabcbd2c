import { sql } from "drizzle-orm";
import { agentRuns } from "./schema";

/** PROTOCOL.md's usage totals as the sums of runs' rows (a user's, in their object). */
export const usageSums = {
  runs: sql<number>`count(*)`,
  inputTokens: sql<number>`coalesce(sum(${agentRuns.inputTokens}), 0)`,
  outputTokens: sql<number>`coalesce(sum(${agentRuns.outputTokens}), 0)`,
  cacheReadTokens: sql<number>`coalesce(sum(${agentRuns.cacheReadTokens}), 0)`,
  cacheWriteTokens: sql<number>`coalesce(sum(${agentRuns.cacheWriteTokens}), 0)`,
  costUsd: sql<number>`coalesce(sum(${agentRuns.costUsd}), 0)`,
};
