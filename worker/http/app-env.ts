import type { Context } from "hono";
import type { Env } from "../env";
import { isId } from "../lib/ids";
import { hintFrom } from "../lib/placement";
import { roomStub as threadObject, type Caller, type RoomApi, type RoomReply } from "../thread";
import { userStub, type UserApi } from "../user/stub";
import type { AuthVars } from "./auth";
import { ApiError } from "./errors";

export type AppEnv = { Bindings: Env; Variables: AuthVars };

/**
 * The thread's object, for an id the app could have made. Any other id is answered here as an
 * unknown thread is, so a made-up id never creates an object (each name is an object of its own).
 */
export function roomStub(env: Env, threadId: string, hint?: DurableObjectLocationHint): RoomApi {
  if (!isId("thr", threadId)) throw new ApiError("not_found", "Thread not found");
  return threadObject(env, threadId, hint);
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

/**
 * A call to the caller's own object (their directory, search, usage, files, tasks). One it cannot
 * answer (unreachable, or its first import from D1 failed) is 503: the user's data is never guessed.
 */
export function askUser<T>(c: Context<AppEnv>, call: (user: UserApi) => Promise<T>): Promise<T> {
  // The user's first request makes their object, near them (lib/placement.ts).
  return reached(c, () => call(userStub(c.env, c.var.userId, undefined, hintFrom(c.env, c.req.raw))));
}

/** A call to a user's object (however it was reached), answered, or 503 when the object cannot answer. */
export async function reached<T>(c: Context<AppEnv>, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    console.warn(JSON.stringify({ level: "warn", msg: "the user's object did not answer", requestId: c.var.requestId, error: String(err) }));
    throw new ApiError("unavailable", "Your threads' index could not be reached; try again in a moment", {}, { "Retry-After": "5" });
  }
}
