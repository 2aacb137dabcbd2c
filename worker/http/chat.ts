import { Hono, type Context } from "hono";
import { z } from "zod";
import { MAX_CLIENT_MESSAGE_ID, MAX_CONTENT_CHARS } from "../../protocol";
import { ApiError } from "./errors";
import { callerOf, fromRoom, roomStub, type AppEnv } from "./app-env";
import { jsonBody } from "./validate";

const content = z
  .string()
  .max(MAX_CONTENT_CHARS)
  .refine((s) => s.trim().length > 0, "must not be empty");
const clientMessageId = z.string().min(1).max(MAX_CLIENT_MESSAGE_ID).optional();
const postBody = z.strictObject({ content, clientMessageId });
const chatBody = z.strictObject({ threadId: z.string().min(1), content, clientMessageId });
const prewarmBody = z.strictObject({ threadId: z.string().min(1) });

/** Hands the message to its thread's object, which stores it before answering: no D1 on the way. */
async function post(c: Context<AppEnv>, threadId: string, body: { content: string; clientMessageId?: string }) {
  const reply = await roomStub(c.env, threadId).accept(callerOf(c, threadId), {
    content: body.content,
    clientMessageId: body.clientMessageId,
    role: "user",
    source: "web",
  });
  const { message, duplicate } = fromRoom(reply);
  return c.json({ message }, duplicate ? 200 : 202);
}

/** Routes that reach a thread's object: messages in, stop, the socket, prewarm. */
export const chatRoutes = new Hono<AppEnv>()
  .post("/threads/:id/messages", async (c) => post(c, c.req.param("id"), await jsonBody(c, postBody)))
  .post("/chat", async (c) => {
    const body = await jsonBody(c, chatBody);
    return post(c, body.threadId, body);
  })
  .post("/threads/:id/stop", async (c) => c.json(fromRoom(await roomStub(c.env, c.req.param("id")).stop(callerOf(c))), 202))
  .get("/threads/:id/ws", async (c) => {
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      throw new ApiError("invalid_request", "This route takes a WebSocket upgrade", { issues: [] });
    }
    // Identity travels in headers the Worker sets itself; whatever the client sent is replaced. The
    // object checks that this user owns the thread, and answers 404 otherwise.
    const who = callerOf(c);
    const headers = new Headers(c.req.raw.headers);
    headers.set("x-thread-id", who.threadId);
    headers.set("x-user-id", who.userId);
    return roomStub(c.env, who.threadId).fetch(new Request(c.req.url, { headers }));
  })
  .post("/prewarm", async (c) => {
    const { threadId } = await jsonBody(c, prewarmBody);
    fromRoom(await roomStub(c.env, threadId).prewarm(callerOf(c, threadId)));
    return c.body(null, 204);
  });
