import { Hono } from "hono";
import { z } from "zod";
import type { UsageLimits } from "../../protocol";
import { configOf } from "../env";
import { askUser, type AppEnv } from "./app-env";
import { limitParam, queryParams } from "./validate";
import { reply } from "./reply";

const query = z.object({
  threadId: z.string().min(1).optional(),
  since: z.coerce.number().int().min(0).optional(),
  limit: limitParam(500, 5000),
});

export const metricsRoutes = new Hono<AppEnv>().get("/", async (c) => {
  const q = queryParams(c, query);
  const { runs, totals, spentTodayUsd } = await askUser(c, (user) => user.metrics(q));
  // Today's spend against the cap is the user's, whatever the filters (reservations of runs under way included).
  const limits: UsageLimits = { spentTodayUsd, dailyCapUsd: configOf(c.env).dailyCostUsd };
  return reply(c, "GET /api/metrics", { runs, totals, limits });
});
