import { Hono } from "hono";
import { and, desc, eq, or, type SQL } from "drizzle-orm";
import { z } from "zod";
import { TASK_STATUSES } from "../../protocol";
import { database } from "../db/client";
import { tasks } from "../db/schema";
import { toTask } from "../db/shapes";
import { fromRoom, roomStub, type AppEnv } from "./app-env";
import { ApiError, notFound } from "./errors";
import { queryParams } from "./validate";
import { reply } from "./reply";

const query = z.object({ threadId: z.string().min(1).optional(), status: z.enum(TASK_STATUSES).optional() });
const TERMINAL = new Set(["completed", "failed", "cancelled"]);

export const taskRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const q = queryParams(c, query);
    const where: (SQL | undefined)[] = [eq(tasks.ownerId, c.var.userId)];
    if (q.threadId) where.push(or(eq(tasks.threadId, q.threadId), eq(tasks.parentThreadId, q.threadId)));
    if (q.status) where.push(eq(tasks.status, q.status));
    const rows = await database(c.env).select().from(tasks).where(and(...where)).orderBy(desc(tasks.createdAt)).limit(500);
    return reply(c, "GET /api/tasks", { tasks: rows.map(toTask) });
  })
  .post("/:id/cancel", async (c) => {
    const db = database(c.env);
    const byId = and(eq(tasks.id, c.req.param("id")), eq(tasks.ownerId, c.var.userId));
    const row = await db.query.tasks.findFirst({ where: byId });
    if (!row) throw notFound("Task not found");
    if (TERMINAL.has(row.status)) throw new ApiError("conflict", `The task is already ${row.status}`);
    // The task's own thread stops its run and lets the delegation plugin end the task on both threads.
    fromRoom(await roomStub(c.env, row.threadId).cancelTask({ threadId: row.threadId, userId: c.var.userId }, row.id));
    const task = await db.query.tasks.findFirst({ where: byId });
    return reply(c, "POST /api/tasks/:id/cancel", { task: toTask(task ?? row) }, 202);
  });
