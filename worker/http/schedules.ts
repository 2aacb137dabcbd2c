// Schedules (PROTOCOL.md, "Schedules"): made and listed on their thread's object, which fires them; the
// user's list across threads, and where a schedule's id leads, from the user's object.
import { Hono, type Context } from "hono";
import { scheduleCreate, schedulePatch } from "../thread";
import { askUser, callerOf, fromRoom, roomStub, type AppEnv } from "./app-env";
import { notFound } from "./errors";
import { reply } from "./reply";
import { jsonBody } from "./validate";

/** Routes under /api/threads/:id. */
export const threadScheduleRoutes = new Hono<AppEnv>()
  .post("/:id/schedules", jsonBody("POST /api/threads/:id/schedules", scheduleCreate), async (c) => {
    const schedule = fromRoom(await roomStub(c.env, c.req.param("id")).createSchedule(callerOf(c), c.req.valid("json")));
    return reply(c, "POST /api/threads/:id/schedules", { schedule }, 201);
  })
  .get("/:id/schedules", async (c) => {
    const schedules = fromRoom(await roomStub(c.env, c.req.param("id")).schedules(callerOf(c)));
    return reply(c, "GET /api/threads/:id/schedules", { schedules });
  });

/** The schedule's thread, from the caller's own object: another user's schedule is not found. */
async function threadOf(c: Context<AppEnv>, id: string): Promise<string> {
  const threadId = await askUser(c, (user) => user.scheduleThread(id));
  if (!threadId) throw notFound("No such schedule");
  return threadId;
}

/** Routes under /api/schedules. */
export const scheduleRoutes = new Hono<AppEnv>()
  .get("/", async (c) => reply(c, "GET /api/schedules", { schedules: await askUser(c, (user) => user.schedules()) }))
  .patch("/:scheduleId", jsonBody("PATCH /api/schedules/:scheduleId", schedulePatch), async (c) => {
    const id = c.req.param("scheduleId");
    const threadId = await threadOf(c, id);
    const schedule = fromRoom(await roomStub(c.env, threadId).updateSchedule(callerOf(c, threadId), id, c.req.valid("json")));
    return reply(c, "PATCH /api/schedules/:scheduleId", { schedule });
  })
  .delete("/:scheduleId", async (c) => {
    const id = c.req.param("scheduleId");
    const threadId = await threadOf(c, id);
    fromRoom(await roomStub(c.env, threadId).deleteSchedule(callerOf(c, threadId), id));
    return c.body(null, 204);
  });
