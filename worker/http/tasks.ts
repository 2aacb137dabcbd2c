import { Hono } from "hono";
import { and, desc, eq, or, type SQL } from "drizzle-orm";
import { z } from "zod";
import { database } from "../db/client";
import { tasks } from "../db/schema";
import { toTask } from "../db/shapes";
import type { Env } from "../env";
import type { AcceptInput } from "../thread/room";
import { finishTask, isTerminal, type TaskPorts } from "../plugins/delegation/tasks";
import { roomStub, type AppEnv } from "./app-env";
import { ApiError, notFound } from "./errors";
import { queryParams } from "./validate";

const query = z.object({
  threadId: z.string().min(1).optional(),
  status: z.enum(["pending", "running", "evaluating", "completed", "failed", "cancelled"]).optional(),
});

/** The task ports as the Worker has them: D1, and the threads' objects by RPC. */
function workerPorts(env: Env): TaskPorts {
  return {
    db: database(env.DB),
    broadcast: (threadId, event, data) => roomStub(env, threadId).broadcastEvent(threadId, event, data),
    sendToThread: async (threadId, content, options = {}) => {
      const input: AcceptInput = { threadId, content, ...options, source: options.source ?? "delegation" };
      const result = await roomStub(env, threadId).accept(input);
      if (!result.ok) throw new ApiError("rate_limited", "The parent thread is busy; try again shortly", {}, { "Retry-After": "5" });
      return result.message;
    },
  };
}

export const taskRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const q = queryParams(c, query);
    const where: (SQL | undefined)[] = [eq(tasks.ownerId, c.var.userId)];
    if (q.threadId) where.push(or(eq(tasks.threadId, q.threadId), eq(tasks.parentThreadId, q.threadId)));
    if (q.status) where.push(eq(tasks.status, q.status));
    const rows = await database(c.env.DB).select().from(tasks).where(and(...where)).orderBy(desc(tasks.createdAt)).limit(500);
    return c.json({ tasks: rows.map(toTask) });
  })
  .post("/:id/cancel", async (c) => {
    const db = database(c.env.DB);
    const row = await db.query.tasks.findFirst({ where: and(eq(tasks.id, c.req.param("id")), eq(tasks.ownerId, c.var.userId)) });
    if (!row) throw notFound("Task not found");
    if (isTerminal(row.status)) throw new ApiError("conflict", `The task is already ${row.status}`);
    // The record first, so the child's object sees the cancellation when its current run ends.
    const task = await finishTask(workerPorts(c.env), row, { status: "cancelled", result: "Cancelled by the user", event: "task:failed" }, false);
    await roomStub(c.env, row.threadId).cancelTask(row.id);
    return c.json({ task }, 202);
  });
