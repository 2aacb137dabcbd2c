// The statements that copy a thread object's rows into D1: upserts by key, so a flush that is retried
// (or that raced a restart) never doubles a row. Parents before children, for the foreign keys.
import { getTableColumns, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "./client";
import { agentRuns, messages, metrics, threads } from "./schema";

export type MirrorRows = {
  threads: (typeof threads.$inferInsert)[];
  messages: (typeof messages.$inferInsert)[];
  agent_runs: (typeof agentRuns.$inferInsert)[];
  metrics: (typeof metrics.$inferInsert)[];
};

// D1 binds at most 100 parameters per statement.
const MAX_PARAMS = 100;

/** `SET col = excluded.col` for every column but the key ones. */
function takeIncoming(table: SQLiteTable, keys: SQLiteColumn[]): Record<string, SQL> {
  const set: Record<string, SQL> = {};
  for (const [name, column] of Object.entries(getTableColumns(table))) {
    if (keys.includes(column) || column.primary) continue;
    set[name] = sql.raw(`excluded.${JSON.stringify(column.name)}`);
  }
  return set;
}

function upserts<T extends SQLiteTable>(db: Db, table: T, rows: T["$inferInsert"][], keys: SQLiteColumn[]): BatchItem<"sqlite">[] {
  if (rows.length === 0) return [];
  const columns = Object.keys(rows[0]).length;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns));
  const set = takeIncoming(table, keys);
  const out: BatchItem<"sqlite">[] = [];
  for (let i = 0; i < rows.length; i += perStatement) {
    out.push(db.insert(table).values(rows.slice(i, i + perStatement)).onConflictDoUpdate({ target: keys, set }));
  }
  return out;
}

export function mirrorStatements(db: Db, rows: MirrorRows): BatchItem<"sqlite">[] {
  return [
    ...upserts(db, threads, rows.threads, [threads.id]),
    ...upserts(db, messages, rows.messages, [messages.id]),
    ...upserts(db, agentRuns, rows.agent_runs, [agentRuns.id]),
    ...upserts(db, metrics, rows.metrics, [metrics.runId, metrics.name]),
  ];
}
