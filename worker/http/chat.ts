import { Hono, type Context } from "hono";
import { z } from "zod";
import { ApiError } from "./errors";
import { ownedThread, roomStub, type AppEnv } from "./app-env";
import { jsonBody } from "./validate";

export const MAX_CONTENT_CHARS = 100_000;

const content = z
  .string()
  .max(MAX_CONTENT_CHARS)
  .refine((s) => s.trim().length > 0, "must not be empty");
const clientMessageId = z.string().min(1).max(128).optional();
const postBody = z.strictObject({ content, clientMessageId });
const chatBody = z.strictObject({ threadId: z.string().min(1), content, clientMessageId });
const prewarmBody = z.strictObject({ threadId: z.string().min(1) });

async function post(c: Context<AppEnv>, threadId: string, body: { content: string; clientMessageId?: string }) {
  const thread = await ownedThread(c, threadId);
  if (thread.status === "archived") throw new ApiError("conflict", "This thread is archived; unarchive it to write");
  const result = await roomStub(c.env, thread.id).accept({
    threadId: thread.id,
    content: body.content,
    clientMessageId: body.clientMessageId,
    role: "user",
    source: "web",
  });
  if (!result.ok) {
    throw new ApiError("rate_limited", `This thread already has ${result.queued} messages waiting; send this one when they are answered`, {}, { "Retry-After": "5" });
  }
  return c.json({ message: result.message }, result.duplicate ? 200 : 202);
}

/** Routes that reach a thread's object: messages in, stop, the socket, prewarm. */
export const chatRoutes = new Hono<AppEnv>()
  .post("/threads/:id/messages", async (c) => post(c, c.req.param("id"), await jsonBody(c, postBody)))
  .post("/chat", async (c) => {
    const body = await jsonBody(c, chatBody);
    return post(c, body.threadId, body);
  })
  .post("/threads/:id/stop", async (c) => {
    const thread = await ownedThread(c);
    return c.json(await roomStub(c.env, thread.id).stop(), 202);
  })
  .get("/threads/:id/ws", async (c) => {
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      throw new ApiError("invalid_request", "This route takes a WebSocket upgrade", { issues: [] });
    }
    const thread = await ownedThread(c);
    // Identity travels in headers the Worker sets itself; whatever the client sent is replaced.
    const headers = new Headers(c.req.raw.headers);
    headers.set("x-thread-id", thread.id);
    headers.set("x-user-id", c.var.userId);
    return roomStub(c.env, thread.id).fetch(new Request(c.req.url, { headers }));
  })
  .post("/prewarm", async (c) => {
    const { threadId } = await jsonBody(c, prewarmBody);
    const thread = await ownedThread(c, threadId);
    await roomStub(c.env, thread.id).prewarm(thread.id);
    return c.body(null, 204);
  });
