// Usage across users, for ADMIN_USERS: totals per user and UTC day, from D1's copy of every run (the
// deployment's record; each user's own usage is answered by their object). Read by the index on
// (owner, started), bounded by a window of at most 92 days.
import { Hono } from "hono";
import { and, gte, lt, sql } from "drizzle-orm";
import { z } from "zod";
import type { UserDayUsage } from "../../protocol";
import { database } from "../db/client";
import { agentRuns } from "../db/schema";
import { usageSums } from "../db/usage-sums";
import { roundUsd } from "../lib/usd";
import { DAY_MS, utcDayStart } from "../lib/time";
import { isAdmin } from "./auth";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";
import { queryParams } from "./validate";
import { reply } from "./reply";

const MAX_WINDOW_MS = 92 * DAY_MS;

const query = z
  .object({ since: z.coerce.number().int().min(0).optional(), until: z.coerce.number().int().min(0).optional() })
  .transform((q) => {
    const until = q.until ?? Date.now();
    return { until, since: q.since ?? utcDayStart(until) - 29 * DAY_MS };
  })
  .refine((q) => q.since < q.until && q.until - q.since <= MAX_WINDOW_MS, "since must be before until, at most 92 days apart");

export const adminUsageRoutes = new Hono<AppEnv>().get("/", async (c) => {
  if (!isAdmin(c.env, c.var.userId)) throw new ApiError("forbidden", "Only an admin (ADMIN_USERS) may see usage across users");
  const { since, until } = queryParams(c, query);
  const day = sql<string>`strftime('%Y-%m-%d', ${agentRuns.startedAt} / 1000, 'unixepoch')`;
  const rows = await database(c.env)
    .select({
      userId: agentRuns.ownerId,
      day,
      ...usageSums,
    })
    .from(agentRuns)
    .where(and(gte(agentRuns.startedAt, since), lt(agentRuns.startedAt, until)))
    .groupBy(agentRuns.ownerId, day)
    .orderBy(sql`${day} DESC`, agentRuns.ownerId)
    .limit(10_000);
  const usage: UserDayUsage[] = rows.map((r) => ({ ...r, costUsd: roundUsd(r.costUsd) }));
  return reply(c, "GET /api/admin/usage", { usage });
});
