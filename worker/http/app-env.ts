import type { Context } from "hono";
import type { Env } from "../env";
import type { Caller, RoomReply } from "../thread/room-reply";
import type { AuthVars } from "./auth";
import { ApiError } from "./errors";

export type AppEnv = { Bindings: Env; Variables: AuthVars };

export { roomStub } from "../thread/room-stub";

/** The caller of this request, for the thread `id` (the route's `:id` by default). */
export function callerOf(c: Context<AppEnv>, threadId = c.req.param("id") ?? ""): Caller {
  return { threadId, userId: c.var.userId, requestId: c.var.requestId };
}

/** A thread object's answer: its value, or its refusal as PROTOCOL.md's error. */
export function fromRoom<T>(reply: RoomReply<T>): T {
  if (reply.ok) return reply.value;
  const { code, message, retryAfterSec } = reply.error;
  throw new ApiError(code, message, {}, retryAfterSec !== undefined ? { "Retry-After": String(retryAfterSec) } : {});
}
