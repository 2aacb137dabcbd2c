// Rows waiting to leave an object (for D1, or for the owner's object), one per (table, key), in a
// table of the object's own SQLite: a newer copy of a row replaces the one waiting, so a flush sends
// each row's latest state once. A removal waits the same way, as the row's key with `$deleted`.
// A row its destination refuses for good, or the oldest of an outbox past its bound, moves to a
// dead-letter table beside it (`${name}_dead`) with the error: kept to be looked at, out of the way.

/**
 * The tables an object's rows go to: D1's (a thread's metadata, a user's usage by day), and those of
 * the owner's object that a thread reports to (its directory and search, usage, schedules, waiting calls).
 */
export type MirrorTable = "thread_directory" | "usage_days" | "threads" | "messages" | "agent_runs" | "schedules" | "approvals";

export interface OutboxEntry {
  id: number;
  table: MirrorTable;
  key: string;
  row: Record<string, unknown>;
}

/** The mark of a removal: the row holds only its key's fields. */
export const DELETED = "$deleted";

export const isRemoval = (row: Record<string, unknown>) => row[DELETED] === true;

export interface DeadLetter extends OutboxEntry {
  error: string;
  at: number;
}

type StoredEntry = { id: number; tbl: string; key: string; row: string };
const entryOf = (r: StoredEntry): OutboxEntry => ({ id: r.id, table: r.tbl as MirrorTable, key: r.key, row: JSON.parse(r.row) });

export class Outbox {
  /** `name`: the object's table for this outbox (one object may keep several, one per destination). */
  constructor(
    private readonly sql: SqlStorage,
    private readonly name = "outbox",
  ) {
    this.create();
  }

  private get dead(): string {
    return `${this.name}_dead`;
  }

  /** Its tables, if missing (again after the object's storage was emptied). */
  create(): void {
    this.sql.exec(`CREATE TABLE IF NOT EXISTS ${this.name} (
      id INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, key TEXT NOT NULL, row TEXT NOT NULL, UNIQUE (tbl, key)
    )`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS ${this.dead} (id INTEGER PRIMARY KEY, tbl TEXT, key TEXT, row TEXT, error TEXT, at INTEGER)`);
  }

  put(table: MirrorTable, key: string, row: object): void {
    // REPLACE gives the row a new id, so a flush that read the older copy leaves this one waiting.
    this.sql.exec(`INSERT OR REPLACE INTO ${this.name} (tbl, key, row) VALUES (?, ?, ?)`, table, key, JSON.stringify(row));
  }

  /** The row of `table` with this key goes at the next flush (`keyRow`: its key's fields). */
  remove(table: MirrorTable, key: string, keyRow: object): void {
    this.put(table, key, { ...keyRow, [DELETED]: true });
  }

  pending(): OutboxEntry[] {
    return this.sql.exec<StoredEntry>(`SELECT id, tbl, key, row FROM ${this.name} ORDER BY id`).toArray().map(entryOf);
  }

  size(): number {
    return this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${this.name}`).one().n;
  }

  /** Forgets what a flush wrote; an entry replaced meanwhile has a new id and stays. */
  flushed(ids: number[]): void {
    // One bound JSON array, not a parameter per id: SQLite here binds at most 100.
    this.sql.exec(`DELETE FROM ${this.name} WHERE id IN (SELECT value FROM json_each(?))`, JSON.stringify(ids));
  }

  /**
   * Moves these entries to the dead letters, with the error that put them there. Copied from the table,
   * not from `entries`: an entry replaced meanwhile has a newer copy waiting, which stays and is tried.
   */
  deadLetter(entries: OutboxEntry[], error: string): void {
    const ids = entries.map((e) => e.id);
    this.sql.exec(
      `INSERT INTO ${this.dead} (tbl, key, row, error, at) SELECT tbl, key, row, ?, ? FROM ${this.name} WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`,
      error,
      Date.now(),
      JSON.stringify(ids),
    );
    this.flushed(ids);
  }

  /** The oldest dead letters first. */
  deadLetters(limit = 100): DeadLetter[] {
    return this.sql
      .exec<StoredEntry & { error: string; at: number }>(`SELECT id, tbl, key, row, error, at FROM ${this.dead} ORDER BY id LIMIT ?`, limit)
      .toArray()
      .map((r) => ({ ...entryOf(r), error: r.error, at: r.at }));
  }

  deadCount(): number {
    return this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${this.dead}`).one().n;
  }
}
