import type { ApiErrorCode } from "../../protocol";
import type { Env } from "../env";
import type { ThreadRoom } from "./room";

/** Who asks a thread's object for something: the thread (the object's name) and the caller's user id. */
export interface Caller {
  threadId: string;
  userId: string;
  /** The HTTP request this call serves (X-Request-Id): on its log lines and those of a run it starts. */
  requestId?: string;
}

/** A refusal the object answers with (not a throw: codes survive RPC as data). */
export interface RoomError {
  code: ApiErrorCode;
  message: string;
  retryAfterSec?: number;
}

export type RoomReply<T> = { ok: true; value: T } | { ok: false; error: RoomError };

export const ok = <T>(value: T): RoomReply<T> => ({ ok: true, value });
export const refuse = (code: ApiErrorCode, message: string, retryAfterSec?: number): RoomReply<never> => ({
  ok: false,
  error: { code, message, ...(retryAfterSec !== undefined ? { retryAfterSec } : {}) },
});

/** For callers inside the Worker's objects (plugins): a refusal becomes a thrown error. */
export function unwrap<T>(reply: RoomReply<T>): T {
  if (reply.ok) return reply.value;
  throw new Error(reply.error.message);
}

/** The RPC surface of a thread's object. */
export type RoomApi = Pick<
  ThreadRoom,
  | "create"
  | "get"
  | "patch"
  | "messages"
  | "exportBranch"
  | "addFile"
  | "file"
  | "accept"
  | "edit"
  | "regenerate"
  | "setHead"
  | "stop"
  | "prewarm"
  | "cancelTask"
  | "broadcastEvent"
  | "invalidate"
  | "destroy"
  | "issueTicket"
  | "fetch"
>;

/**
 * The thread's object: one per thread id, wherever it is asked for (the Worker, another thread).
 * Typed with the class's own signatures: RPC's typings turn a value they cannot prove serializable
 * (our JSON metadata, typed `unknown`) into `never`, though every value crossing is plain JSON.
 */
export function roomStub(env: Env, threadId: string): RoomApi {
  return env.THREAD_ROOM.get(env.THREAD_ROOM.idFromName(threadId)) as unknown as RoomApi;
}
