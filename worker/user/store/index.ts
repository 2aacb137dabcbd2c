// The user's object's own SQLite, as its subsystems share it: the cursor, Drizzle over it, transactions,
// and `meta` (whose object this is, the import from D1). Each subsystem creates its own tables in its
// own folder. The directory, usage, files and tasks keep D1's tables by name and column, for this one
// user, so Drizzle's table objects (worker/db/schema.ts) and the shapes made from them serve both.
import { sql, type SQL } from "drizzle-orm";
import { drizzle, type DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import * as schema from "../../db/schema";

export type UserDb = DrizzleSqliteDODatabase<typeof schema>;

export class UserStore {
  readonly sql: SqlStorage;
  readonly db: UserDb;

  constructor(private readonly storage: DurableObjectStorage) {
    this.sql = storage.sql;
    this.sql.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    this.db = drizzle(storage, { schema });
  }

  /** All of `fn`'s writes, or none of them. */
  transaction<T>(fn: () => T): T {
    return this.storage.transactionSync(fn);
  }

  meta(key: string): string | null {
    return this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0]?.value ?? null;
  }

  setMeta(key: string, value: string): void {
    this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", key, value);
  }
}

/** `column IN (values)`, bound as one JSON array: a statement here binds at most 100 parameters. */
export function inList(column: SQLiteColumn, values: readonly string[]): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/** A column added after its table was first made (an object from before lacks it). */
export function addColumn(sql: SqlStorage, table: string, column: string, type: string): void {
  if (sql.exec("SELECT 1 FROM pragma_table_info(?) WHERE name = ?", table, column).toArray().length === 0) {
    sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
  }
}
