// What a thread's object answers its callers with: a value, or a refusal with the API's error code.
import type { ApiErrorCode } from "../../protocol";

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
