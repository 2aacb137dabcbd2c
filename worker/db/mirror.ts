// The statements that copy a thread object's rows into D1: upserts by key, so a flush that is retried
// (or that raced a restart) never doubles a row. Parents before children, for the foreign keys.
//
// A flush ends every run, so its statements' text is built from the schema once per shape (table,
// columns, rows per statement) and only bound after: Drizzle's query builder took longer than the
// rest of a run's end put together.
import { getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { agentRuns, messages, metrics, threads } from "./schema";

export type MirrorRows = {
  threads: (typeof threads.$inferInsert)[];
  messages: (typeof messages.$inferInsert)[];
  agent_runs: (typeof agentRuns.$inferInsert)[];
  metrics: (typeof metrics.$inferInsert)[];
};

// D1 binds at most 100 parameters per statement.
const MAX_PARAMS = 100;

/** An upsert's text, and the columns that encode its parameters (a row's, repeated per row). */
interface Shape {
  text: string;
  columns: SQLiteColumn[];
}

const shapes = new Map<string, Shape>();

const quote = (name: string) => JSON.stringify(name);

/**
 * `INSERT INTO t (a, b) VALUES (?, ?), ... ON CONFLICT (a) DO UPDATE SET b = excluded.b`: the columns
 * written are the row's, and a conflict takes each of them but the key.
 */
function shapeOf(table: SQLiteTable, fields: string[], rows: number, keys: SQLiteColumn[]): Shape {
  const id = `${getTableName(table)}|${fields.join(",")}|${rows}`;
  let shape = shapes.get(id);
  if (!shape) {
    const all = getTableColumns(table);
    const columns = fields.map((f) => all[f] as SQLiteColumn);
    const names = columns.map((c) => quote(c.name));
    const update = columns.filter((c) => !keys.includes(c)).map((c) => `${quote(c.name)} = excluded.${quote(c.name)}`);
    const row = `(${columns.map(() => "?").join(", ")})`;
    const text =
      `INSERT INTO ${quote(getTableName(table))} (${names.join(", ")}) VALUES ${Array(rows).fill(row).join(", ")}` +
      ` ON CONFLICT (${keys.map((k) => quote(k.name)).join(", ")}) DO ${update.length ? `UPDATE SET ${update.join(", ")}` : "NOTHING"}`;
    shape = { text, columns };
    shapes.set(id, shape);
  }
  return shape;
}

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
      const { text, columns } = shapeOf(table, fields, slice.length, keys);
      const values: unknown[] = [];
      for (const row of slice) {
        for (let c = 0; c < fields.length; c++) {
          const value = row[fields[c]];
          values.push(value === null || value === undefined ? null : columns[c].mapToDriverValue(value));
        }
      }
      out.push(d1.prepare(text).bind(...values));
    }
  }
  return out;
}

export function mirrorStatements(d1: D1Database, rows: MirrorRows): D1PreparedStatement[] {
  return [
    ...upserts(d1, threads, rows.threads, [threads.id]),
    ...upserts(d1, messages, rows.messages, [messages.id]),
    ...upserts(d1, agentRuns, rows.agent_runs, [agentRuns.id]),
    ...upserts(d1, metrics, rows.metrics, [metrics.runId, metrics.name]),
  ];
}
