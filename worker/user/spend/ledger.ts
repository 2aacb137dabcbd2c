// The user's spend ledger, in their object's SQLite: a row per run, its cost once it is known, or
// what it reserved while it runs (every run reserves while a cap is set). One writer, so a reservation is checked and taken
// in one step: runs started at once cannot all pass the cap. Today's spend counts the runs the
// threads reported (usage, `agent_runs`) that the ledger has no row for: with no cap set, or with a
// settlement still on its way, the total is still every run's.
import { utcDayStart, DAY_MS } from "../../lib/time";

export interface SpendState {
  /** What the user spent today (UTC), reservations of runs under way included. */
  spentUsd: number;
}

export type Reservation = ({ ok: true } | { ok: false }) & SpendState;

export class SpendLedger {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS ledger (
      run_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, at INTEGER NOT NULL, usd REAL NOT NULL, reserved INTEGER NOT NULL
    )`);
    sql.exec("CREATE INDEX IF NOT EXISTS ledger_at ON ledger (at)");
  }

  today(now = Date.now()): SpendState {
    const since = utcDayStart(now);
    const { usd } = this.sql
      .exec<{ usd: number | null }>(
        `SELECT (SELECT coalesce(sum(usd), 0) FROM ledger WHERE at >= ?1)
              + (SELECT coalesce(sum(cost_usd), 0) FROM agent_runs WHERE started_at >= ?1 AND id NOT IN (SELECT run_id FROM ledger)) AS usd`,
        since,
      )
      .one();
    return { spentUsd: usd ?? 0 };
  }

  /**
   * Holds `usd` more for a run if today's spend stays within `capUsd` with it; else holds nothing. A
   * run reserves before each of its model requests: a tool round adds to what it holds.
   */
  reserve(runId: string, threadId: string, usd: number, capUsd: number, now = Date.now()): Reservation {
    const { spentUsd } = this.today(now);
    if (spentUsd + usd > capUsd) return { ok: false, spentUsd };
    this.sql.exec(
      `INSERT INTO ledger (run_id, thread_id, at, usd, reserved) VALUES (?1, ?2, ?3, ?4, 1)
       ON CONFLICT (run_id) DO UPDATE SET usd = usd + excluded.usd WHERE reserved = 1`,
      runId,
      threadId,
      now,
      usd,
    );
    return { ok: true, spentUsd: this.today(now).spentUsd };
  }

  /** A run's real cost, in place of what it reserved; the same run settled again changes nothing. */
  settle(runId: string, threadId: string, usd: number, at: number): SpendState {
    this.sql.exec("INSERT OR REPLACE INTO ledger (run_id, thread_id, at, usd, reserved) VALUES (?, ?, ?, ?, 0)", runId, threadId, at, usd);
    // Yesterday's rows answer nothing any more.
    this.sql.exec("DELETE FROM ledger WHERE at < ?", utcDayStart(Date.now()) - DAY_MS);
    return this.today();
  }

  /** Today's runs in the user's usage (imported from D1 before this ledger existed); a run it holds is kept. */
  importToday(now = Date.now()): void {
    this.sql.exec(
      "INSERT OR IGNORE INTO ledger (run_id, thread_id, at, usd, reserved) SELECT id, thread_id, started_at, cost_usd, 0 FROM agent_runs WHERE started_at >= ?",
      utcDayStart(now),
    );
  }
}
