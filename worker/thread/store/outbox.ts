// Rows waiting to be mirrored to D1, one per (table, key): a newer copy of a row replaces the one
// waiting, so a flush sends each row's latest state once.

/** The D1 tables a thread's object mirrors into. */
export type MirrorTable = "threads" | "messages" | "agent_runs" | "metrics";

export interface OutboxEntry {
  id: number;
  table: MirrorTable;
  key: string;
  row: Record<string, unknown>;
}

export class Outbox {
  constructor(private readonly sql: SqlStorage) {}

  put(table: MirrorTable, key: string, row: Record<string, unknown>): void {
    // REPLACE gives the row a new id, so a flush that read the older copy leaves this one waiting.
    this.sql.exec("INSERT OR REPLACE INTO outbox (tbl, key, row) VALUES (?, ?, ?)", table, key, JSON.stringify(row));
  }

  pending(): OutboxEntry[] {
    return this.sql
      .exec<{ id: number; tbl: string; key: string; row: string }>("SELECT id, tbl, key, row FROM outbox ORDER BY id")
      .toArray()
      .map((r) => ({ id: r.id, table: r.tbl as MirrorTable, key: r.key, row: JSON.parse(r.row) }));
  }

  size(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM outbox").one().n;
  }

  /** Forgets what a flush wrote; an entry replaced meanwhile has a new id and stays. */
  flushed(ids: number[]): void {
    for (let i = 0; i < ids.length; i += 200) {
      const chunk = ids.slice(i, i + 200);
      this.sql.exec(`DELETE FROM outbox WHERE id IN (${chunk.map(() => "?").join(",")})`, ...chunk);
    }
  }
}
