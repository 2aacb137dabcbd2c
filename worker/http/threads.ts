import { Hono, type Context } from "hono";
import { z } from "zod";
import { isTimeZone, MAX_INSTRUCTIONS_CHARS, MESSAGE_KINDS, MESSAGE_PAGE, CREATED_THREAD_KINDS, THREAD_STATUSES } from "../../protocol";
import { decodeCursor } from "../user/directory";
import { configOf } from "../env";
import { newId } from "../lib/ids";
import { hintFrom } from "../lib/placement";
import { deleteThreadFiles, deleteUploadsLater } from "./attachments";
import { checkModel } from "./models";
import { ApiError } from "./errors";
import { askUser, callerOf, fromRoom, roomStub, type AppEnv } from "./app-env";
import { jsonBody, limitParam, queryParams } from "./validate";
import { reply } from "./reply";

const name = z.string().trim().min(1).max(200);
const model = z.string().trim().min(1).max(100).regex(/^[\w.:@/-]+$/, "not a model name");
const status = z.enum(THREAD_STATUSES);
const timezone = z.string().min(1).max(64).refine(isTimeZone, "not an IANA timezone (e.g. Europe/Paris)");

const projectId = z.string().min(1).max(100);
const createBody = z.strictObject({
  name: name.optional(),
  kind: z.enum(CREATED_THREAD_KINDS).optional(),
  model: model.optional(),
  timezone: timezone.optional(),
  projectId: projectId.optional(),
});
const patchBody = z
  .strictObject({
    name: name.optional(),
    model: model.optional(),
    status: status.optional(),
    instructions: z.string().max(MAX_INSTRUCTIONS_CHARS).optional(),
    timezone: timezone.optional(),
    projectId: projectId.nullable().optional(),
    mcpOff: z.array(z.string().min(1).max(64)).max(100).optional(),
    codeExecution: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, "Give at least one of name, model, status, instructions, timezone, projectId");
const listQuery = z.object({ status: status.optional(), limit: limitParam(50, 200), cursor: z.string().optional() });
const messagesQuery = z.object({
  limit: limitParam(MESSAGE_PAGE, 500),
  before: z.string().min(1).optional(),
  kinds: z
    .string()
    .optional()
    .transform((s) => (s ? s.split(",").map((k) => k.trim()).filter(Boolean) : undefined))
    .pipe(z.array(z.enum(MESSAGE_KINDS)).optional()),
});

/** A project the thread may join: one of the caller's (400 otherwise, naming it). */
async function checkProject(c: Context<AppEnv>, id: string | null | undefined): Promise<void> {
  if (!id) return;
  if (!(await askUser(c, (user) => user.project(id)))) throw new ApiError("invalid_request", "No such project", { issues: [{ path: "projectId", message: "not one of your projects" }] });
}

export const threadRoutes = new Hono<AppEnv>()
  .post("/", jsonBody("POST /api/threads", createBody), async (c) => {
    const body = c.req.valid("json");
    await checkModel(c, body.model);
    await checkProject(c, body.projectId);
    const id = newId("thr");
    const thread = fromRoom(
      await roomStub(c.env, id, hintFrom(c.env, c.req.raw)).create(callerOf(c, id), {
        name: body.name ?? "New thread",
        named: body.name !== undefined,
        kind: body.kind ?? "general",
        model: body.model ?? configOf(c.env).defaultModel,
        ...(body.timezone ? { timezone: body.timezone } : {}),
        ...(body.projectId ? { projectId: body.projectId } : {}),
      }),
    );
    return reply(c, "POST /api/threads", { thread }, 201);
  })
  .get("/", async (c) => {
    const q = queryParams(c, listQuery);
    const cursor = q.cursor ? decodeCursor(q.cursor) : undefined;
    if (cursor === null) throw new ApiError("invalid_request", "Invalid cursor", { issues: [] });
    const page = await askUser(c, (user) => user.threads({ status: q.status, limit: q.limit, cursor }));
    return reply(c, "GET /api/threads", page);
  })
  .get("/:id", async (c) => reply(c, "GET /api/threads/:id", { thread: fromRoom(await roomStub(c.env, c.req.param("id")).get(callerOf(c))) }))
  .patch("/:id", jsonBody("PATCH /api/threads/:id", patchBody), async (c) => {
    const body = c.req.valid("json");
    await checkModel(c, body.model);
    await checkProject(c, body.projectId);
    return reply(c, "PATCH /api/threads/:id", { thread: fromRoom(await roomStub(c.env, c.req.param("id")).patch(callerOf(c), body)) });
  })
  .delete("/:id", async (c) => {
    const who = callerOf(c);
    fromRoom(await roomStub(c.env, who.threadId).get(who));
    // A thread the directory does not hold yet (its report still on the way) has no task threads.
    const family = (await askUser(c, (user) => user.family(who.threadId))) ?? [who.threadId];
    // The objects first: once one is empty (and tombstoned) nothing can report or mirror its rows again.
    await Promise.all(family.map((threadId) => roomStub(c.env, threadId).destroy({ threadId, userId: who.userId })));
    await deleteThreadFiles(c, who.userId, family);
    const uploads = await askUser(c, (user) => user.forget(family));
    deleteUploadsLater(c, uploads);
    return c.body(null, 204);
  })
  .get("/:id/messages", async (c) => {
    const q = queryParams(c, messagesQuery);
    return reply(c, "GET /api/threads/:id/messages", fromRoom(await roomStub(c.env, c.req.param("id")).messages(callerOf(c), q)));
  });
