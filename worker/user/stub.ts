import type { Env } from "../env";
import type { UserRoom } from "./room";

/** The RPC surface of a user's object. */
export type UserApi = Pick<UserRoom, "spend" | "reserve" | "settle">;

/** The user's object: one per user id, wherever it is asked for (a thread's object, the Worker). */
export function userStub(env: Env, userId: string): UserApi {
  const users = env.USER_ROOM as DurableObjectNamespace<UserRoom>;
  return users.get(users.idFromName(userId));
}
