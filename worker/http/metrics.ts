import { Hono } from "hono";
import { and, desc, eq, gte, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { UsageLimits } from "../../protocol";
import { database } from "../db/client";
import { configOf } from "../env";
import { utcDayStart } from "../lib/time";
import { agentRuns, threads } from "../db/schema";
import { toRun } from "../db/shapes";
import type { AppEnv } from "./app-env";
import { limitParam, queryParams } from "./validate";
import { reply } from "./reply";

const query = z.object({
  threadId: z.string().min(1).optional(),
  since: z.coerce.number().int().min(0).optional(),
  limit: limitParam(500, 5000),
});

export const metricsRoutes = new Hono<AppEnv>().get("/", async (c) => {
  const q = queryParams(c, query);
  const where: SQL[] = [eq(agentRuns.ownerId, c.var.userId)];
  if (q.threadId) where.push(eq(agentRuns.threadId, q.threadId));
  if (q.since !== undefined) where.push(gte(agentRuns.startedAt, q.since));
  const db = database(c.env);
  const [runs, [totals], [today]] = await db.batch([
    // Usage outlives its thread: a run whose thread is gone lists with no thread name.
    db
      .select({ run: agentRuns, threadName: threads.name })
      .from(agentRuns)
      .leftJoin(threads, eq(threads.id, agentRuns.threadId))
      .where(and(...where))
      .orderBy(desc(agentRuns.startedAt))
      .limit(q.limit),
    db
      .select({
        runs: sql<number>`count(*)`,
        inputTokens: sql<number>`coalesce(sum(${agentRuns.inputTokens}), 0)`,
        outputTokens: sql<number>`coalesce(sum(${agentRuns.outputTokens}), 0)`,
        cacheReadTokens: sql<number>`coalesce(sum(${agentRuns.cacheReadTokens}), 0)`,
        cacheWriteTokens: sql<number>`coalesce(sum(${agentRuns.cacheWriteTokens}), 0)`,
        costUsd: sql<number>`coalesce(sum(${agentRuns.costUsd}), 0)`,
      })
      .from(agentRuns)
      .where(and(...where)),
    // Today's spend against the cap is the user's, whatever the filters.
    db
      .select({ usd: sql<number>`coalesce(sum(${agentRuns.costUsd}), 0)` })
      .from(agentRuns)
      .where(and(eq(agentRuns.ownerId, c.var.userId), gte(agentRuns.startedAt, utcDayStart(Date.now())))),
  ]);
  const limits: UsageLimits = { spentTodayUsd: Math.round(today.usd * 1e6) / 1e6, dailyCapUsd: configOf(c.env).dailyCostUsd };
  return reply(c, "GET /api/metrics", {
    runs: runs.map((r) => toRun(r.run, r.threadName)),
    totals: { ...totals, costUsd: Math.round(totals.costUsd * 1e6) / 1e6 },
    limits,
  });
});
