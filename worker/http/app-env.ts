import type { Context } from "hono";
import type { Env } from "../env";
import { database } from "../db/client";
import type { ThreadRow } from "../db/schema";
import { findOwnedThread } from "../db/threads";
import type { AuthVars } from "./auth";
import { notFound } from "./errors";

export type AppEnv = { Bindings: Env; Variables: AuthVars };

export { roomStub } from "../thread/room-stub";

/** The `:id` thread of the route, if the caller owns it; 404 otherwise, never another user's data. */
export async function ownedThread(c: Context<AppEnv>, id = c.req.param("id")): Promise<ThreadRow> {
  const row = id ? await findOwnedThread(database(c.env.DB), c.var.userId, id) : undefined;
  if (!row) throw notFound("Thread not found");
  return row;
}
