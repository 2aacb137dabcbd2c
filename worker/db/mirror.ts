// The statements that copy the objects' rows into D1 (a thread's metadata, a user's usage by day):
// upserts by key, so a flush that is retried (or that raced a restart) never doubles a row.
//
// A flush ends every run, so its statements' text is built once per shape (upsert.ts).
import { getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { isRemoval, type OutboxEntry } from "../lib/outbox";
import type { Sink } from "../lib/outbox-flush";
import { threadDirectory, threads, usageDays } from "./schema";
import { upsertShape, upsertValues } from "./upsert";

export type MirrorRows = {
  thread_directory: (typeof threadDirectory.$inferInsert)[];
  usage_days: (typeof usageDays.$inferInsert)[];
  /** Removals only: a deleted thread's rows from before the objects (LEGACY_IMPORT). */
  threads: (typeof threads.$inferInsert)[];
};

/** Each table's key, for upserts and removals. */
const KEYS: { [T in keyof MirrorRows]: [SQLiteTable, SQLiteColumn[]] } = {
  thread_directory: [threadDirectory, [threadDirectory.id]],
  usage_days: [usageDays, [usageDays.day, usageDays.ownerId]],
  threads: [threads, [threads.id]],
};

// D1 binds at most 100 parameters per statement.
const MAX_PARAMS = 100;

const quote = (name: string) => JSON.stringify(name);

function upserts<T extends SQLiteTable>(d1: D1Database, table: T, rows: T["$inferInsert"][], keys: SQLiteColumn[]): D1PreparedStatement[] {
  // Rows with the same fields share a statement.
  const byFields = new Map<string, Record<string, unknown>[]>();
  for (const row of rows as Record<string, unknown>[]) {
    const fields = Object.keys(row).join(",");
    const group = byFields.get(fields);
    if (group) group.push(row);
    else byFields.set(fields, [row]);
  }
  const out: D1PreparedStatement[] = [];
  for (const [joined, group] of byFields) {
    const fields = joined.split(",");
    const perStatement = Math.max(1, Math.floor(MAX_PARAMS / fields.length));
    for (let i = 0; i < group.length; i += perStatement) {
      const slice = group.slice(i, i + perStatement);
      const shape = upsertShape(table, fields, slice.length, keys);
      out.push(d1.prepare(shape.text).bind(...upsertValues(shape, fields, slice)));
    }
  }
  return out;
}

/** A removal by key. */
function removal(d1: D1Database, table: keyof MirrorRows, row: Record<string, unknown>): D1PreparedStatement {
  const [t, keys] = KEYS[table];
  const all = getTableColumns(t);
  const fields = Object.keys(all).filter((f) => keys.includes(all[f] as SQLiteColumn));
  const where = fields.map((f) => `${quote((all[f] as SQLiteColumn).name)} = ?`).join(" AND ");
  return d1.prepare(`DELETE FROM ${quote(getTableName(t))} WHERE ${where}`).bind(...fields.map((f) => row[f] ?? null));
}

/** Upserts first, removals last, so a row removed after a copy of it stays gone. */
const ORDER: (keyof MirrorRows)[] = ["thread_directory", "usage_days", "threads"];

export function mirrorStatements(d1: D1Database, entries: OutboxEntry[]): D1PreparedStatement[] {
  const rows = Object.fromEntries(ORDER.map((t) => [t, [] as Record<string, unknown>[]])) as Record<keyof MirrorRows, Record<string, unknown>[]>;
  const removals: D1PreparedStatement[] = [];
  for (const e of entries) {
    // A table D1 does not keep (the owner's object's) is not mirrored.
    if (!(e.table in KEYS)) continue;
    if (isRemoval(e.row)) removals.push(removal(d1, e.table as keyof MirrorRows, e.row));
    else rows[e.table as keyof MirrorRows].push(e.row);
  }
  return [...ORDER.flatMap((t) => upserts(d1, KEYS[t][0], rows[t], KEYS[t][1])), ...removals];
}

/** D1 as an outbox's sink: the entries in one batch. */
export function d1Sink(d1: D1Database): Sink {
  return {
    async write(entries) {
      const statements = mirrorStatements(d1, entries);
      if (statements.length) await d1.batch(statements);
    },
  };
}
