import type { Env } from "../env";
import type { UserRoom } from "./room";

/** The RPC surface of a user's object. */
export type UserApi = DurableObjectStub<UserRoom>;

/**
 * The user's object: one per user id, wherever it is asked for (a thread's object, the Worker).
 * `faults.down` (tests) makes it unreachable for the caller that holds them.
 */
export function userStub(env: Env, userId: string, faults?: { down: boolean }): UserApi {
  if (faults?.down) throw new Error("The user's object is unreachable (a test's fault)");
  const users = env.USER_ROOM as DurableObjectNamespace<UserRoom>;
  return users.get(users.idFromName(userId));
}

/** A user's object by its own id (a share link names it; the user stays unnamed). */
export function userStubById(env: Env, id: DurableObjectId): UserApi {
  return (env.USER_ROOM as DurableObjectNamespace<UserRoom>).get(id);
}
