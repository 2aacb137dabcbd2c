// The mirror's upserts (worker/db/mirror.ts) against the real D1: built once per shape and bound per
// flush, they must write what Drizzle would have, exactly once however often they run.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { database } from "../../worker/db/client";
import { mirrorStatements, type MirrorRows } from "../../worker/db/mirror";
import { messages, metrics } from "../../worker/db/schema";
import type { MirrorTable, OutboxEntry } from "../../worker/lib/outbox";
import { env } from "../helpers";
import { countRows, insertThread } from "../http/util";

/** Rows as an outbox holds them (the key is the outbox's, unused by the statements). */
const entriesOf = (rows: Partial<MirrorRows>): OutboxEntry[] =>
  Object.entries(rows).flatMap(([table, list]) => list.map((row, i) => ({ id: i, table: table as MirrorTable, key: String(i), row: row as Record<string, unknown> })));
const flush = (rows: Partial<MirrorRows>) => env.DB.batch(mirrorStatements(env.DB, entriesOf(rows)));

function message(threadId: string, id: string, fields: Partial<MirrorRows["messages"][number]> = {}): MirrorRows["messages"][number] {
  return { id, threadId, role: "assistant", kind: "text", source: "assistant", content: `text of ${id}`, model: "claude-sonnet-4-6", metadata: { runId: "run_1", usage: { inputTokens: 3 } }, clientMessageId: null, parentId: null, createdAt: 1_000, ...fields };
}

describe("mirror statements", () => {
  it("write each row once, however often a flush runs again, and take a row's newer copy", async () => {
    const threadId = await insertThread({ ownerId: "mirror-user" });
    await flush({ messages: [message(threadId, "msg_m1"), message(threadId, "msg_m2")] });
    await flush({ messages: [message(threadId, "msg_m1"), message(threadId, "msg_m2", { content: "edited" })] });
    expect(await countRows("messages", "thread_id = ?", threadId)).toBe(2);
    const row = await env.DB.prepare("SELECT content FROM messages WHERE id = 'msg_m2'").first<{ content: string }>();
    expect(row?.content).toBe("edited");
  });

  it("encode columns as Drizzle does: JSON metadata reads back as the object, nulls stay null", async () => {
    const threadId = await insertThread({ ownerId: "mirror-user" });
    await flush({ messages: [message(threadId, "msg_json", { model: null, parentId: null })] });
    const [row] = await database(env).select().from(messages).where(eq(messages.id, "msg_json"));
    expect(row.metadata).toEqual({ runId: "run_1", usage: { inputTokens: 3 } });
    expect(row.model).toBeNull();
  });

  it("split a flush past D1's 100 parameters into several statements, and lose no row", async () => {
    const threadId = await insertThread({ ownerId: "mirror-user" });
    const many = Array.from({ length: 25 }, (_, i) => message(threadId, `msg_many_${threadId}_${i}`));
    const statements = mirrorStatements(env.DB, entriesOf({ messages: many }));
    expect(statements.length).toBe(Math.ceil(25 / Math.floor(100 / 11)));
    await env.DB.batch(statements);
    expect(await countRows("messages", "thread_id = ?", threadId)).toBe(25);
  });

  it("update only the columns a row carries, keyed by the table's conflict target", async () => {
    const threadId = await insertThread({ ownerId: "mirror-user" });
    await flush({ messages: [message(threadId, "msg_partial", { model: "claude-opus-4-5" })] });
    const { model: _, ...withoutModel } = message(threadId, "msg_partial", { content: "second copy" });
    await flush({ messages: [withoutModel] });
    const row = await env.DB.prepare("SELECT content, model FROM messages WHERE id = 'msg_partial'").first<{ content: string; model: string }>();
    expect(row).toEqual({ content: "second copy", model: "claude-opus-4-5" });

    const at = Date.now();
    const run = { id: `run_${threadId}`, threadId, ownerId: "mirror-user", model: "claude-sonnet-4-6", status: "completed", startedAt: at };
    // Parents before children in one flush: the run, then its metric (a foreign key).
    await flush({ agent_runs: [run], metrics: [{ runId: `run_${threadId}`, name: "cost_usd", value: 1, createdAt: at }] });
    await flush({ metrics: [{ runId: `run_${threadId}`, name: "cost_usd", value: 2, createdAt: at }] });
    const rows = await database(env).select().from(metrics).where(eq(metrics.runId, `run_${threadId}`));
    expect(rows.map((r) => r.value)).toEqual([2]);
  });
});
