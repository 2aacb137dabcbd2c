import { Hono } from "hono";
import { z } from "zod";
import { TASK_STATUSES } from "../../protocol";
import { toTask } from "../db/shapes";
import { askUser, fromRoom, roomStub, type AppEnv } from "./app-env";
import { ApiError, notFound } from "./errors";
import { queryParams } from "./validate";
import { reply } from "./reply";

const query = z.object({ threadId: z.string().min(1).optional(), status: z.enum(TASK_STATUSES).optional() });
const TERMINAL = new Set(["completed", "failed", "cancelled"]);

export const taskRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const q = queryParams(c, query);
    return reply(c, "GET /api/tasks", { tasks: await askUser(c, (user) => user.tasks(q)) });
  })
  .post("/:id/cancel", async (c) => {
    const id = c.req.param("id");
    const row = await askUser(c, (user) => user.task(id));
    if (!row) throw notFound("Task not found");
    if (TERMINAL.has(row.status)) throw new ApiError("conflict", `The task is already ${row.status}`);
    // The task's own thread stops its run and lets the delegation plugin end the task on both threads.
    fromRoom(await roomStub(c.env, row.threadId).cancelTask({ threadId: row.threadId, userId: c.var.userId }, row.id));
    const task = await askUser(c, (user) => user.task(id));
    return reply(c, "POST /api/tasks/:id/cancel", { task: toTask(task ?? row) }, 202);
  });
