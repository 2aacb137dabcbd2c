import type { Context } from "hono";
import { database } from "../db/client";
import { activeThreads } from "../db/threads";
import { configOf } from "../env";
import { roomStub, type AppEnv } from "./app-env";

/**
 * A plugin config or a context file changed in D1: the objects of the threads that ran recently
 * (of one owner, or of everyone) drop their cached copy, so the change applies from their next run.
 * Older objects' caches are past STEP0_MAX_AGE_MS anyway and are read again.
 */
export async function announceChange(c: Context<AppEnv>, ownerId?: string): Promise<void> {
  const since = Date.now() - configOf(c.env).step0MaxAgeMs;
  const ids = await activeThreads(database(c.env), since, ownerId);
  await Promise.allSettled(ids.map(async (id) => roomStub(c.env, id).invalidate()));
}
