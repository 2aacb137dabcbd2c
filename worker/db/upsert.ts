// Upserts by key whose text is built from the Drizzle schema once per shape (table, columns, rows,
// condition) and only bound after. They are on the way of every run's end (the D1 mirror, the owner's
// object taking a thread's report), where Drizzle's query builder took longer than the statements.
import { getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";

/** An upsert's text, and the columns that encode its parameters (a row's, repeated per row). */
export interface UpsertShape {
  text: string;
  columns: SQLiteColumn[];
}

const shapes = new Map<string, UpsertShape>();

const quote = (name: string) => JSON.stringify(name);

/**
 * `INSERT INTO t (a, b) VALUES (?, ?), ... ON CONFLICT (a) DO UPDATE SET b = excluded.b [WHERE onlyIf]`:
 * the columns written are the row's, and a conflict takes each of them but the key. `onlyIf` is SQL
 * over `excluded` and the table's own columns (a newer copy wins, say).
 */
export function upsertShape(table: SQLiteTable, fields: string[], rows: number, keys: SQLiteColumn[], onlyIf = ""): UpsertShape {
  const id = `${getTableName(table)}|${fields.join(",")}|${rows}|${onlyIf}`;
  let shape = shapes.get(id);
  if (!shape) {
    const all = getTableColumns(table);
    const columns = fields.map((f) => all[f] as SQLiteColumn);
    const names = columns.map((c) => quote(c.name));
    const update = columns.filter((c) => !keys.includes(c)).map((c) => `${quote(c.name)} = excluded.${quote(c.name)}`);
    const row = `(${columns.map(() => "?").join(", ")})`;
    const text =
      `INSERT INTO ${quote(getTableName(table))} (${names.join(", ")}) VALUES ${Array(rows).fill(row).join(", ")}` +
      ` ON CONFLICT (${keys.map((k) => quote(k.name)).join(", ")}) DO ${update.length ? `UPDATE SET ${update.join(", ")}${onlyIf ? ` WHERE ${onlyIf}` : ""}` : "NOTHING"}`;
    shape = { text, columns };
    shapes.set(id, shape);
  }
  return shape;
}

/** The rows' values in the shape's order, as the driver takes them (JSON text, booleans as 0/1). */
export function upsertValues(shape: UpsertShape, fields: string[], rows: Record<string, unknown>[]): unknown[] {
  const values: unknown[] = [];
  for (const row of rows) {
    for (let c = 0; c < fields.length; c++) {
      const value = row[fields[c]];
      values.push(value === null || value === undefined ? null : shape.columns[c].mapToDriverValue(value));
    }
  }
  return values;
}

/** One row upserted into an object's own SQLite. */
export function upsertRow<T extends SQLiteTable>(sql: SqlStorage, table: T, row: T["$inferInsert"], keys: SQLiteColumn[], onlyIf?: string): void {
  const fields = Object.keys(row);
  const shape = upsertShape(table, fields, 1, keys, onlyIf);
  sql.exec(shape.text, ...upsertValues(shape, fields, [row as Record<string, unknown>]));
}
