import { Hono } from "hono";
import { and, desc, eq, or, type SQL } from "drizzle-orm";
import { z } from "zod";
import { database } from "../db/client";
import { tasks } from "../db/schema";
import { toTask } from "../db/shapes";
import type { AppEnv } from "./app-env";
import { queryParams } from "./validate";

const query = z.object({
  threadId: z.string().min(1).optional(),
  status: z.enum(["pending", "running", "evaluating", "completed", "failed", "cancelled"]).optional(),
});

export const taskRoutes = new Hono<AppEnv>().get("/", async (c) => {
  const q = queryParams(c, query);
  const where: (SQL | undefined)[] = [eq(tasks.ownerId, c.var.userId)];
  if (q.threadId) where.push(or(eq(tasks.threadId, q.threadId), eq(tasks.parentThreadId, q.threadId)));
  if (q.status) where.push(eq(tasks.status, q.status));
  const rows = await database(c.env.DB).select().from(tasks).where(and(...where)).orderBy(desc(tasks.createdAt)).limit(500);
  return c.json({ tasks: rows.map(toTask) });
});
