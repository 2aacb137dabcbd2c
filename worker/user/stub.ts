// How the Worker and the user's threads reach a user's object: by the user's id, which is its name.
import type { Env } from "../env";
import { placed } from "../lib/placement";
import type { UserRoom } from "./room";

export type { ReportEntry } from "./report";

/**
 * The RPC surface of a user's object: its methods as the class declares them, each answering a promise.
 * The stub's own typings turn a value they cannot prove serializable (JSON typed `unknown`) into
 * `never`, and a union of answers into something callers cannot read; the class's signatures are the
 * contract, and the stub is assignable to them.
 */
export type UserApi = {
  [K in Exclude<keyof UserRoom, keyof DurableObject>]: UserRoom[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

/**
 * The user's object: one per user id, wherever it is asked for (a thread's object, the Worker).
 * `faults.down` (tests) makes it unreachable for the caller that holds them.
 */
export function userStub(env: Env, userId: string, faults?: { down: boolean }, hint?: DurableObjectLocationHint): UserApi {
  if (faults?.down) throw new Error("The user's object is unreachable (a test's fault)");
  const users = placed(env, env.USER_ROOM as DurableObjectNamespace<UserRoom>);
  return users.get(users.idFromName(userId), hint ? { locationHint: hint } : undefined);
}

/** A user's object by its own id (a share link names it; the user stays unnamed). */
export function userStubById(env: Env, id: DurableObjectId): UserApi {
  return placed(env, env.USER_ROOM as DurableObjectNamespace<UserRoom>).get(id);
}
