import { Hono } from "hono";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { defaultModel } from "../env";
import { database } from "../db/client";
import { listMessages, MESSAGE_KINDS } from "../db/messages";
import { threads } from "../db/schema";
import { toMessage, toThread } from "../db/shapes";
import { createThread, decodeCursor, listThreads, threadFamily, updateThread } from "../db/threads";
import { ApiError } from "./errors";
import { ownedThread, roomStub, type AppEnv } from "./app-env";
import { jsonBody, limitParam, queryParams } from "./validate";

const name = z.string().trim().min(1).max(200);
const model = z.string().trim().min(1).max(100).regex(/^[\w.:@/-]+$/, "not a model name");
const status = z.enum(["open", "active", "completed", "failed", "archived"]);

const createBody = z.strictObject({
  name: name.optional(),
  kind: z.enum(["general", "primary", "task", "cron"]).optional(),
  model: model.optional(),
});
const patchBody = z
  .strictObject({ name: name.optional(), model: model.optional(), status: status.optional() })
  .refine((b) => Object.keys(b).length > 0, "Give at least one of name, model, status");
const listQuery = z.object({ status: status.optional(), limit: limitParam(50, 200), cursor: z.string().optional() });
const messagesQuery = z.object({
  limit: limitParam(100, 500),
  before: z.string().min(1).optional(),
  kinds: z
    .string()
    .optional()
    .transform((s) => (s ? s.split(",").map((k) => k.trim()).filter(Boolean) : undefined))
    .pipe(z.array(z.enum(MESSAGE_KINDS)).optional()),
});

export const threadRoutes = new Hono<AppEnv>()
  .post("/", async (c) => {
    const body = await jsonBody(c, createBody);
    const row = await createThread(database(c.env.DB), {
      ownerId: c.var.userId,
      name: body.name ?? "New thread",
      kind: body.kind ?? "general",
      model: body.model ?? defaultModel(c.env),
    });
    return c.json({ thread: toThread(row) }, 201);
  })
  .get("/", async (c) => {
    const q = queryParams(c, listQuery);
    const cursor = q.cursor ? decodeCursor(q.cursor) : undefined;
    if (cursor === null) throw new ApiError("invalid_request", "Invalid cursor", { issues: [] });
    const page = await listThreads(database(c.env.DB), c.var.userId, { status: q.status, limit: q.limit, cursor });
    return c.json({ threads: page.rows.map(toThread), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) });
  })
  .get("/:id", async (c) => {
    const row = await ownedThread(c);
    return c.json({ thread: toThread(row) });
  })
  .patch("/:id", async (c) => {
    const body = await jsonBody(c, patchBody);
    const row = await ownedThread(c);
    const updated = (await updateThread(database(c.env.DB), row.id, body)) ?? row;
    const thread = toThread(updated);
    await roomStub(c.env, row.id).threadChanged(thread);
    return c.json({ thread });
  })
  .delete("/:id", async (c) => {
    const row = await ownedThread(c);
    const db = database(c.env.DB);
    const family = await threadFamily(db, row.id);
    await db.delete(threads).where(eq(threads.id, row.id));
    // D1 first: once the rows are gone nothing can reach the objects again, then clear their state.
    await Promise.all(family.map((id) => roomStub(c.env, id).destroy()));
    return c.body(null, 204);
  })
  .get("/:id/messages", async (c) => {
    const q = queryParams(c, messagesQuery);
    const row = await ownedThread(c);
    // The cursor is read before the rows, so whatever happens in between is replayed, not missed.
    const lastSeq = await roomStub(c.env, row.id).replayCursor();
    const rows = await listMessages(database(c.env.DB), row.id, q);
    if (!rows) throw new ApiError("not_found", "No such message to page before");
    return c.json({ messages: rows.map(toMessage), lastSeq });
  });
