// The bench's tools, served only when DEV_FAULTS=1 (never in a deployment's configuration):
//   /api/dev/d1    takes D1 away for the whole local app at once and counts D1 round trips, so
//                  `npm run bench` can show which routes answer without D1 and that the mirrors catch up
//   /api/dev/seed  fills a user's object with text messages (as their threads would report them), so
//                  the bench can search one user's messages among many users' messages
//   /api/dev/record what D1 holds of the caller (their threads' directory rows, their usage roll-up's
//                  runs), so the bench can see the record catch up after D1 was away
import { Hono } from "hono";
import { z } from "zod";
import { count, eq, sum } from "drizzle-orm";
import { database, devD1 } from "../db/client";
import { threadDirectory, usageDays } from "../db/schema";
import { configOf } from "../env";
import { newId } from "../lib/ids";
import { userStub, type UserApi } from "../user/stub";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";

const body = z.strictObject({ down: z.boolean() });
const seedBody = z.strictObject({ userId: z.string().min(1).max(100).optional(), messages: z.number().int().min(1).max(5_000) });

const WORDS = "river stone cloud quick silver orange garden window market bridge winter lantern copper meadow harbor violet".split(" ");

/** `n` text messages in one thread of the user, in report batches of 500. */
async function seed(user: UserApi, userId: string, n: number): Promise<string> {
  const threadId = newId("thr");
  const now = Date.now();
  const thread = { id: threadId, ownerId: userId, source: "bench", name: "Seeded", kind: "general", status: "open", model: "bench", lastActivity: now, createdAt: now, updatedAt: now };
  await user.report([{ table: "threads", row: thread }]);
  for (let i = 0; i < n; i += 500) {
    const rows = Array.from({ length: Math.min(500, n - i) }, (_, j) => {
      const k = i + j;
      const text = Array.from({ length: 40 }, (_, w) => WORDS[(k * 7 + w * 13) % WORDS.length]).join(" ");
      return { table: "messages" as const, row: { id: newId("msg"), threadId, role: k % 2 ? "assistant" : "user", kind: "text", source: "bench", content: `${text} number${k}`, createdAt: now + k } };
    });
    await user.report(rows);
  }
  return threadId;
}

export const devFaultRoutes = new Hono<AppEnv>()
  .use(async (c, next) => {
    if (!configOf(c.env).devFaults) throw new ApiError("not_found", `No route ${c.req.method} ${c.req.path}`);
    await next();
  })
  .get("/d1", (c) => c.json({ ...devD1 }))
  .post("/d1", async (c) => {
    const parsed = body.safeParse(await c.req.json().catch(() => null));
    if (!parsed.success) throw new ApiError("invalid_request", "Give { down: boolean }", { issues: [] });
    devD1.down = parsed.data.down;
    return c.json({ ...devD1 });
  })
  .get("/record", async (c) => {
    const db = database(c.env);
    const [[directory], [usage]] = await db.batch([
      db.select({ n: count() }).from(threadDirectory).where(eq(threadDirectory.ownerId, c.var.userId)),
      db.select({ runs: sum(usageDays.runs) }).from(usageDays).where(eq(usageDays.ownerId, c.var.userId)),
    ]);
    return c.json({ directory: directory.n, usageRuns: Number(usage.runs ?? 0) });
  })
  .post("/seed", async (c) => {
    const parsed = seedBody.safeParse(await c.req.json().catch(() => null));
    if (!parsed.success) throw new ApiError("invalid_request", "Give { messages: 1..5000, userId? }", { issues: [] });
    const userId = parsed.data.userId ?? c.var.userId;
    return c.json({ threadId: await seed(userStub(c.env, userId), userId, parsed.data.messages) });
  });
