import type { Context } from "hono";
import { gt } from "drizzle-orm";
import { database } from "../db/client";
import { DIRECTORY_ACTIVITY_GRAIN_MS, threadDirectory } from "../db/schema";
import { configOf } from "../env";
import { roomStub, type AppEnv } from "./app-env";

/**
 * A plugin config changed (an admin's change, for everyone): the objects of the threads that ran
 * recently drop their step-0 copy, so the change applies from their next run. Older objects' copies
 * are past STEP0_MAX_AGE_MS anyway and are read again. (A user's own files are announced by their
 * object, to their threads.)
 */
export async function announceChange(c: Context<AppEnv>): Promise<void> {
  const since = Date.now() - configOf(c.env).step0MaxAgeMs - DIRECTORY_ACTIVITY_GRAIN_MS;
  // The directory's index on last_activity: the recently active threads are read, not every thread.
  const rows = await database(c.env).select({ id: threadDirectory.id }).from(threadDirectory).where(gt(threadDirectory.lastActivity, since)).limit(1000);
  await Promise.allSettled(rows.map(async ({ id }) => roomStub(c.env, id).invalidate()));
}
