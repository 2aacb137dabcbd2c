import type { Context } from "hono";
import type { Env } from "../env";
import { isId } from "../lib/ids";
import { roomStub as threadObject, type RoomApi } from "../thread/room-stub";
import type { Caller, RoomReply } from "../thread/room-reply";
import type { AuthVars } from "./auth";
import { ApiError } from "./errors";

export type AppEnv = { Bindings: Env; Variables: AuthVars };

/**
 * The thread's object, for an id the app could have made. Any other id is answered here as an
 * unknown thread is, so a made-up id never creates an object (each name is an object of its own).
 */
export function roomStub(env: Env, threadId: string): RoomApi {
  if (!isId("thr", threadId)) throw new ApiError("not_found", "Thread not found");
  return threadObject(env, threadId);
}

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
