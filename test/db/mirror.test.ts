// The mirror's upserts (worker/db/mirror.ts) against the real D1: built once per shape and bound per
// flush, they must write what Drizzle would have, exactly once however often they run.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { database } from "../../worker/db/client";
import { mirrorStatements, type MirrorRows } from "../../worker/db/mirror";
import { threadDirectory, usageDays } from "../../worker/db/schema";
import type { MirrorTable, OutboxEntry } from "../../worker/lib/outbox";
import { env } from "../helpers";
import { countRows } from "../http/util";

/** Rows as an outbox holds them (the key is the outbox's, unused by the statements). */
const entriesOf = (rows: Partial<MirrorRows>): OutboxEntry[] =>
  Object.entries(rows).flatMap(([table, list]) => list.map((row, i) => ({ id: i, table: table as MirrorTable, key: String(i), row: row as Record<string, unknown> })));
const flush = (rows: Partial<MirrorRows>) => env.DB.batch(mirrorStatements(env.DB, entriesOf(rows)));

function thread(ownerId: string, id: string, fields: Partial<MirrorRows["thread_directory"][number]> = {}): MirrorRows["thread_directory"][number] {
  return { id, ownerId, kind: "general", name: `thread ${id}`, status: "active", parentThreadId: null, lastActivity: 1_000, createdAt: 1_000, updatedAt: 1_000, ...fields };
}

const day = (ownerId: string, runs: number) => ({ day: "2026-11-27", ownerId, runs, inputTokens: runs * 10, outputTokens: runs, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: runs / 100, updatedAt: runs });

describe("mirror statements", () => {
  it("write each row once, however often a flush runs again, and take a row's newer copy", async () => {
    const owner = `mirror-${crypto.randomUUID().slice(0, 8)}`;
    await flush({ thread_directory: [thread(owner, `thr_${owner}_1`), thread(owner, `thr_${owner}_2`)] });
    await flush({ thread_directory: [thread(owner, `thr_${owner}_1`), thread(owner, `thr_${owner}_2`, { name: "renamed" })] });
    expect(await countRows("thread_directory", "owner_id = ?", owner)).toBe(2);
    const [row] = await database(env).select().from(threadDirectory).where(eq(threadDirectory.id, `thr_${owner}_2`));
    expect(row.name).toBe("renamed");
    expect(row.parentThreadId).toBeNull();
  });

  it("keep a user's day whole: a newer total replaces the older, it is not added to it", async () => {
    const owner = `days-${crypto.randomUUID().slice(0, 8)}`;
    await flush({ usage_days: [day(owner, 1)] });
    await flush({ usage_days: [day(owner, 3)] });
    await flush({ usage_days: [day(owner, 3)] });
    const rows = await database(env).select().from(usageDays).where(eq(usageDays.ownerId, owner));
    expect(rows.map((r) => [r.runs, r.inputTokens])).toEqual([[3, 30]]);
  });

  it("split a flush past D1's 100 parameters into several statements, and lose no row", async () => {
    const owner = `many-${crypto.randomUUID().slice(0, 8)}`;
    const many = Array.from({ length: 25 }, (_, i) => thread(owner, `thr_${owner}_${i}`));
    const statements = mirrorStatements(env.DB, entriesOf({ thread_directory: many }));
    expect(statements.length).toBe(Math.ceil(25 / Math.floor(100 / 9)));
    await env.DB.batch(statements);
    expect(await countRows("thread_directory", "owner_id = ?", owner)).toBe(25);
  });

  it("remove a row by its key, and only that row", async () => {
    const owner = `removed-${crypto.randomUUID().slice(0, 8)}`;
    await flush({ thread_directory: [thread(owner, `thr_${owner}_1`), thread(owner, `thr_${owner}_2`)] });
    await env.DB.batch(mirrorStatements(env.DB, [{ id: 0, table: "thread_directory", key: "k", row: { id: `thr_${owner}_1`, $deleted: true } }]));
    const left = await database(env).select({ id: threadDirectory.id }).from(threadDirectory).where(eq(threadDirectory.ownerId, owner));
    expect(left).toEqual([{ id: `thr_${owner}_2` }]);
  });
});
