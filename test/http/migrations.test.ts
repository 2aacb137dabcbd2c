// The D1 schema as the migrations build it from empty (test/apply-migrations.ts applies them the way
// `wrangler d1 migrations apply` does): every table, column and index of worker/db/schema.ts, and
// foreign keys that D1 enforces (with their cascades).
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as schema from "../../worker/db/schema";
import { insertThread } from "../legacy/d1-rows";
import { countRows, env } from "./util";

const tables = (Object.values(schema) as unknown[])
  .filter((v): v is SQLiteTable => v instanceof SQLiteTable)
  .map((t) => getTableConfig(t));

async function all<T>(sql: string, ...binds: unknown[]): Promise<T[]> {
  return (await env.DB.prepare(sql).bind(...binds).all<T>()).results;
}

async function expectConstraintError(statement: D1PreparedStatement, pattern: RegExp) {
  let error: unknown;
  try {
    await statement.run();
  } catch (e) {
    error = e;
  }
  expect(error, "the statement should have been refused").toBeInstanceOf(Error);
  expect(String((error as Error).message)).toMatch(pattern);
}

const insertMessage = (id: string, threadId: string, clientMessageId: string | null = null) =>
  env.DB.prepare("INSERT INTO messages (id, thread_id, role, content, client_message_id, created_at) VALUES (?, ?, 'user', 'x', ?, ?)").bind(
    id,
    threadId,
    clientMessageId,
    Date.now(),
  );

describe("migrations from empty", () => {
  it("dropped what is no longer written (metrics), and keeps the old tables for the legacy import", async () => {
    const present = (await all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")).map((r) => r.name);
    expect(present).not.toContain("metrics");
    expect(present).toEqual(expect.arrayContaining(["threads", "messages", "agent_runs"]));
  });

  it("the schema declares the tables the app relies on", () => {
    expect(tables.map((t) => t.name).sort()).toEqual(
      expect.arrayContaining(["plugin_configs", "thread_directory", "usage_days", "threads", "messages", "agent_runs", "tasks", "context_files"]),
    );
  });

  it("recorded every migration file as applied", async () => {
    const applied = await all<{ name: string }>("SELECT name FROM d1_migrations ORDER BY id");
    expect(applied.map((r) => r.name)).toEqual(env.TEST_MIGRATIONS.map((m) => m.name));
    expect(applied.length).toBeGreaterThan(0);
  });

  it("created every table of worker/db/schema.ts", async () => {
    const present = (await all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")).map((r) => r.name);
    for (const table of tables) expect(present, `table ${table.name}`).toContain(table.name);
  });

  it.each(tables.map((t) => [t.name, t] as const))("%s has exactly the schema's columns, NOT NULL as declared", async (name, table) => {
    const columns = await all<{ name: string; notnull: number; pk: number }>(`SELECT name, "notnull", pk FROM pragma_table_info(?)`, name);
    expect(columns.map((c) => c.name).sort()).toEqual(table.columns.map((c) => c.name).sort());
    for (const col of table.columns) {
      const actual = columns.find((c) => c.name === col.name)!;
      expect(actual.notnull === 1 || actual.pk > 0, `${name}.${col.name} NOT NULL`).toBe(col.notNull);
    }
  });

  it.each(tables.filter((t) => t.indexes.length > 0).map((t) => [t.name, t] as const))(
    "%s has the schema's indexes, unique where declared",
    async (name, table) => {
      const indexes = await all<{ name: string; unique: number }>(`SELECT name, "unique" FROM pragma_index_list(?)`, name);
      for (const index of table.indexes) {
        const actual = indexes.find((i) => i.name === index.config.name);
        expect(actual, `index ${index.config.name}`).toBeDefined();
        expect(actual!.unique === 1, `index ${index.config.name} unique`).toBe(Boolean(index.config.unique));
      }
    },
  );

  it.each(tables.filter((t) => t.foreignKeys.length > 0).map((t) => [t.name, t] as const))(
    "%s has the schema's foreign keys and their ON DELETE",
    async (name, table) => {
      const fks = await all<{ table: string; from: string; to: string; on_delete: string }>(
        `SELECT "table", "from", "to", on_delete FROM pragma_foreign_key_list(?)`,
        name,
      );
      for (const fk of table.foreignKeys) {
        const ref = fk.reference();
        const from = ref.columns.map((c) => c.name).join(",");
        const actual = fks.find((f) => f.from === from);
        expect(actual, `${name}.${from} → ${getTableConfig(ref.foreignTable).name}`).toBeDefined();
        expect(actual!.table).toBe(getTableConfig(ref.foreignTable).name);
        expect(actual!.on_delete.toLowerCase()).toBe((fk.onDelete ?? "no action").toLowerCase());
      }
    },
  );
});

describe("foreign keys are enforced", () => {
  it("a message for a missing thread is refused", async () => {
    const id = `msg_orphan_${crypto.randomUUID()}`;
    await expectConstraintError(insertMessage(id, "thr_does_not_exist"), /FOREIGN KEY constraint failed/i);
    expect(await countRows("messages", "id = ?", id)).toBe(0);
  });

  it("a task and a child thread with missing parents are refused; a run of a gone thread is kept", async () => {
    const now = Date.now();
    // Usage outlives its thread: agent_runs has no foreign key to threads.
    await env.DB.prepare(
      "INSERT INTO agent_runs (id, thread_id, owner_id, model, status, started_at) VALUES (?, 'thr_missing', 'local', 'm', 'completed', ?)",
    )
      .bind(`run_orphan_${now}`, now)
      .run();
    expect(await countRows("agent_runs", "id = ?", `run_orphan_${now}`)).toBe(1);
    await expectConstraintError(
      env.DB.prepare(
        "INSERT INTO tasks (id, owner_id, thread_id, prompt, max_iterations, created_at, updated_at) VALUES (?, 'local', 'thr_missing', 'p', 1, ?, ?)",
      ).bind(`task_orphan_${now}`, now, now),
      /FOREIGN KEY/i,
    );
    await expectConstraintError(
      env.DB.prepare(
        "INSERT INTO threads (id, owner_id, name, model, parent_thread_id, last_activity, created_at, updated_at) VALUES (?, 'local', 'orphan', 'm', 'thr_missing', ?, ?, ?)",
      ).bind(`thr_orphan_${now}`, now, now, now),
      /FOREIGN KEY/i,
    );
  });

  it("a message for an existing thread is accepted", async () => {
    const thread = await insertThread({ ownerId: "migrations" });
    await insertMessage(`msg_ok_${crypto.randomUUID()}`, thread).run();
    expect(await countRows("messages", "thread_id = ?", thread)).toBe(1);
  });

  it("deleting a thread cascades to its messages, tasks and child threads, not to its usage", async () => {
    const parent = await insertThread({ ownerId: "migrations" });
    const child = await insertThread({ ownerId: "migrations", parentThreadId: parent });
    const now = Date.now();
    const runId = `run_cascade_${now}`;
    await env.DB.batch([
      insertMessage(`msg_p_${now}`, parent),
      insertMessage(`msg_c_${now}`, child),
      env.DB.prepare(
        "INSERT INTO agent_runs (id, thread_id, owner_id, model, status, started_at) VALUES (?, ?, 'migrations', 'm', 'completed', ?)",
      ).bind(runId, parent, now),
      env.DB.prepare(
        "INSERT INTO tasks (id, owner_id, thread_id, parent_thread_id, prompt, max_iterations, created_at, updated_at) VALUES (?, 'migrations', ?, ?, 'p', 1, ?, ?)",
      ).bind(`task_cascade_${now}`, child, parent, now, now),
    ]);
    await env.DB.prepare("DELETE FROM threads WHERE id = ?").bind(parent).run();
    expect(await countRows("threads", "id IN (?, ?)", parent, child)).toBe(0);
    expect(await countRows("messages", "thread_id IN (?, ?)", parent, child)).toBe(0);
    expect(await countRows("agent_runs", "id = ?", runId)).toBe(1);
    expect(await countRows("tasks", "thread_id = ? OR parent_thread_id = ?", child, parent)).toBe(0);
  });
});

describe("unique indexes are enforced", () => {
  it("one clientMessageId per thread; none (NULL) as often as wanted", async () => {
    const thread = await insertThread({ ownerId: "migrations" });
    const other = await insertThread({ ownerId: "migrations" });
    const cid = `cid-${crypto.randomUUID()}`;
    await insertMessage(`msg_u1_${cid}`, thread, cid).run();
    await expectConstraintError(insertMessage(`msg_u2_${cid}`, thread, cid), /UNIQUE constraint failed/i);
    await insertMessage(`msg_u3_${cid}`, other, cid).run();
    await insertMessage(`msg_n1_${cid}`, thread).run();
    await insertMessage(`msg_n2_${cid}`, thread).run();
    expect(await countRows("messages", "thread_id = ?", thread)).toBe(3);
  });
});
