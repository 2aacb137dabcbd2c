// Usage across users, for ADMIN_USERS: each user's totals per UTC day, from D1's roll-up (usage_days:
// each user's object writes a day's totals as its runs come). A page at a time, newest day first, then
// by user, with the cursor to the next page: nothing is cut without saying so. At most 92 days a query.
import { Hono } from "hono";
import { and, asc, desc, eq, gt, gte, lt, lte, or } from "drizzle-orm";
import { z } from "zod";
import type { UserDayUsage } from "../../protocol";
import { database } from "../db/client";
import { usageDays } from "../db/schema";
import { roundUsd } from "../lib/usd";
import { DAY_MS, utcDayStart } from "../lib/time";
import { isAdmin } from "./auth";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";
import { limitParam, queryParams } from "./validate";
import { reply } from "./reply";

const MAX_WINDOW_MS = 92 * DAY_MS;

const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

/** A page's end: the last row's day and user. */
const encodeCursor = (r: { day: string; ownerId: string }) => btoa(JSON.stringify([r.day, r.ownerId])).replace(/=+$/, "");

function decodeCursor(cursor: string): { day: string; ownerId: string } | null {
  try {
    const [day, ownerId] = JSON.parse(atob(cursor)) as unknown[];
    return typeof day === "string" && typeof ownerId === "string" ? { day, ownerId } : null;
  } catch {
    return null;
  }
}

const query = z
  .object({
    since: z.coerce.number().int().min(0).optional(),
    until: z.coerce.number().int().min(0).optional(),
    limit: limitParam(1_000, 5_000),
    cursor: z.string().max(500).optional(),
  })
  .transform((q) => {
    const until = q.until ?? Date.now();
    return { ...q, until, since: q.since ?? utcDayStart(until) - 29 * DAY_MS };
  })
  .refine((q) => q.since < q.until && q.until - q.since <= MAX_WINDOW_MS, "since must be before until, at most 92 days apart");

export const adminUsageRoutes = new Hono<AppEnv>().get("/", async (c) => {
  if (!isAdmin(c.env, c.var.userId)) throw new ApiError("forbidden", "Only an admin (ADMIN_USERS) may see usage across users");
  const { since, until, limit, cursor } = queryParams(c, query);
  const after = cursor === undefined ? null : decodeCursor(cursor);
  if (after === null && cursor !== undefined) throw new ApiError("invalid_request", "Invalid cursor", { issues: [{ path: "cursor", message: "not a cursor this route gave" }] });
  const rows = await database(c.env)
    .select()
    .from(usageDays)
    .where(
      and(
        gte(usageDays.day, isoDay(since)),
        lte(usageDays.day, isoDay(until - 1)),
        after ? or(lt(usageDays.day, after.day), and(eq(usageDays.day, after.day), gt(usageDays.ownerId, after.ownerId))) : undefined,
      ),
    )
    .orderBy(desc(usageDays.day), asc(usageDays.ownerId))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const usage: UserDayUsage[] = page.map((r) => ({
    userId: r.ownerId,
    day: r.day,
    runs: r.runs,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    cacheReadTokens: r.cacheReadTokens,
    cacheWriteTokens: r.cacheWriteTokens,
    costUsd: roundUsd(r.costUsd),
  }));
  return reply(c, "GET /api/admin/usage", rows.length > limit ? { usage, nextCursor: encodeCursor(page[page.length - 1]) } : { usage });
});
