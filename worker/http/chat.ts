import { Hono, type Context } from "hono";
import { z } from "zod";
import { clientMessageId, postBody, type Accepted, type PostInput } from "../thread";
import { ApiError } from "./errors";
import { callerOf, fromRoom, roomStub, type AppEnv } from "./app-env";
import { reply } from "./reply";
import { jsonBody } from "./validate";

const threadId = z.string().min(1);
const chatBody = postBody.extend({ threadId });
const threadIdBody = z.strictObject({ threadId });
const regenerateBody = z.strictObject({ clientMessageId: clientMessageId.optional() });
const headBody = z.strictObject({ messageId: z.string().min(1).max(200) });

/** 202 for a message just accepted; 200 for a clientMessageId seen before (nothing runs again). */
function answerAccepted(c: Context<AppEnv>, accepted: Accepted) {
  const { message, duplicate } = fromRoom(accepted);
  return reply(c, "POST /api/threads/:id/messages", { message }, duplicate ? 200 : 202);
}

/** Hands the message to its thread's object, which checks and stores it before answering: no D1 on the way. */
async function post(c: Context<AppEnv>, threadId: string, body: PostInput) {
  return answerAccepted(c, await roomStub(c.env, threadId).post(callerOf(c, threadId), body));
}

/** Routes that reach a thread's object: messages in, stop, the socket, prewarm. */
export const chatRoutes = new Hono<AppEnv>()
  .post("/threads/:id/messages", jsonBody("POST /api/threads/:id/messages", postBody), async (c) => post(c, c.req.param("id"), c.req.valid("json")))
  .post("/chat", jsonBody("POST /api/chat", chatBody), async (c) => {
    const { threadId, ...body } = c.req.valid("json");
    return post(c, threadId, body);
  })
  .post("/threads/:id/messages/:messageId/edit", jsonBody("POST /api/threads/:id/messages/:messageId/edit", postBody), async (c) => {
    const body = c.req.valid("json");
    return answerAccepted(c, await roomStub(c.env, c.req.param("id")).edit(callerOf(c), c.req.param("messageId"), { ...body, source: "web" }));
  })
  .post("/threads/:id/messages/:messageId/regenerate", jsonBody("POST /api/threads/:id/messages/:messageId/regenerate", regenerateBody), async (c) => {
    const { clientMessageId } = c.req.valid("json");
    return answerAccepted(c, await roomStub(c.env, c.req.param("id")).regenerate(callerOf(c), c.req.param("messageId"), clientMessageId));
  })
  .put("/threads/:id/head", jsonBody("PUT /api/threads/:id/head", headBody), async (c) => {
    const { messageId } = c.req.valid("json");
    return reply(c, "PUT /api/threads/:id/head", { thread: fromRoom(await roomStub(c.env, c.req.param("id")).setHead(callerOf(c), messageId)) });
  })
  .post("/threads/:id/stop", async (c) => reply(c, "POST /api/threads/:id/stop", fromRoom(await roomStub(c.env, c.req.param("id")).stop(callerOf(c))), 202))
  .get("/threads/:id/ws", async (c) => {
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      throw new ApiError("invalid_request", "This route takes a WebSocket upgrade", { issues: [] });
    }
    // Identity travels in headers the Worker sets itself; whatever the client sent is replaced. The
    // object checks that this user owns the thread, and answers 404 otherwise.
    const who = callerOf(c);
    const headers = new Headers(c.req.raw.headers);
    for (const name of ["x-thread-id", "x-user-id", "x-ws-ticket", "x-credential-expires-at"]) headers.delete(name);
    headers.set("x-thread-id", who.threadId);
    if (c.var.ticket) headers.set("x-ws-ticket", c.var.ticket);
    else headers.set("x-user-id", who.userId);
    if (c.var.expiresAt !== null) headers.set("x-credential-expires-at", String(c.var.expiresAt));
    const res = await roomStub(c.env, who.threadId).fetch(new Request(c.req.url, { headers }));
    // A copy whose headers the middleware may add to (the object's answer has immutable ones).
    return new Response(res.body, { status: res.status, headers: res.headers, webSocket: res.webSocket });
  })
  .post("/ws-ticket", jsonBody("POST /api/ws-ticket", threadIdBody), async (c) => {
    const { threadId } = c.req.valid("json");
    return reply(c, "POST /api/ws-ticket", fromRoom(await roomStub(c.env, threadId).issueTicket(callerOf(c, threadId), c.var.expiresAt)), 201);
  })
  .post("/prewarm", jsonBody("POST /api/prewarm", threadIdBody), async (c) => {
    const { threadId } = c.req.valid("json");
    fromRoom(await roomStub(c.env, threadId).prewarm(callerOf(c, threadId)));
    return c.body(null, 204);
  });
