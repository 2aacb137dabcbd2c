// A thread object's D1 round trip: one `D1Database.batch` of plain D1 statements, each with the reader
// of its result. The mirror's upserts are built from the schema once per shape (worker/db/mirror.ts),
// which Drizzle's batch cannot carry with parameters; the selects are Drizzle's, their rows mapped by
// the table's columns as Drizzle would.
import { getTableColumns } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";

/** Statements for one batch, and what to do with their results (in the same order). */
export interface BatchRead {
  statements: D1PreparedStatement[];
  apply(results: D1Result[]): void;
}

/** A Drizzle query as a D1 statement. */
export function statementOf(d1: D1Database, query: { toSQL(): { sql: string; params: unknown[] } }): D1PreparedStatement {
  const { sql, params } = query.toSQL();
  return d1.prepare(sql).bind(...params);
}

/** The rows of a `SELECT *` from `table`, as its Drizzle type (column names and modes mapped). */
export function rowsOf<T extends SQLiteTable>(table: T, result: D1Result): T["$inferSelect"][] {
  const columns = Object.entries(getTableColumns(table));
  return (result.results as Record<string, unknown>[]).map((raw) => {
    const row: Record<string, unknown> = {};
    for (const [field, column] of columns) {
      const value = raw[column.name];
      row[field] = value === null || value === undefined ? value : column.mapFromDriverValue(value);
    }
    return row as T["$inferSelect"];
  });
}

/** The first column of the first row: an aggregate. */
export function scalarOf(result: D1Result): unknown {
  const first = (result.results as Record<string, unknown>[])[0];
  return first ? Object.values(first)[0] : undefined;
}

/** Several reads as one, for one batch. */
export function combineReads(...reads: (BatchRead | null)[]): BatchRead | null {
  const present = reads.filter((r): r is BatchRead => r !== null);
  if (present.length <= 1) return present[0] ?? null;
  return {
    statements: present.flatMap((r) => r.statements),
    apply: (results) => {
      let at = 0;
      for (const r of present) {
        r.apply(results.slice(at, at + r.statements.length));
        at += r.statements.length;
      }
    },
  };
}
