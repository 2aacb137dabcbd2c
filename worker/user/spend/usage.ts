// The user's usage: a row per run (tokens, cost, duration), as the threads report them. Usage outlives
// its thread: a deleted thread's runs still count, and list with no thread name.
import { and, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import type { Run, UsageTotals } from "../../../protocol";
import { agentRuns, threads } from "../../db/schema";
import { toRun } from "../../db/shapes";
import { usageSums } from "../../db/usage-sums";
import { upsertRow } from "../../db/upsert";
import { DAY_MS } from "../../lib/time";
import { roundUsd } from "../../lib/usd";
import type { UserDb, UserStore } from "../store";

const TABLES = `
CREATE TABLE IF NOT EXISTS agent_runs (
  id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, owner_id TEXT NOT NULL, task_id TEXT, model TEXT NOT NULL,
  input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens INTEGER NOT NULL DEFAULT 0, cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0, duration_ms INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL, started_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_runs_started ON agent_runs (started_at);
CREATE INDEX IF NOT EXISTS agent_runs_thread ON agent_runs (thread_id, started_at);
`;

export interface UsageQuery {
  threadId?: string;
  since?: number;
  limit: number;
}

export class Usage {
  private readonly db: UserDb;
  private readonly sql: SqlStorage;

  constructor(store: UserStore) {
    store.sql.exec(TABLES);
    this.db = store.db;
    this.sql = store.sql;
  }

  upsert(row: typeof agentRuns.$inferInsert): void {
    upsertRow(this.sql, agentRuns, row, [agentRuns.id]);
  }

  /** The runs that match, newest first, and their totals. */
  runs(q: UsageQuery): { runs: Run[]; totals: UsageTotals } {
    const where: SQL[] = [];
    if (q.threadId) where.push(eq(agentRuns.threadId, q.threadId));
    if (q.since !== undefined) where.push(gte(agentRuns.startedAt, q.since));
    const rows = this.db
      .select({ run: agentRuns, threadName: threads.name })
      .from(agentRuns)
      .leftJoin(threads, eq(threads.id, agentRuns.threadId))
      .where(and(...where))
      .orderBy(desc(agentRuns.startedAt))
      .limit(q.limit)
      .all();
    const totals = this.db
      .select(usageSums)
      .from(agentRuns)
      .where(and(...where))
      .get()!;
    return { runs: rows.map((r) => toRun(r.run, r.threadName)), totals: { ...totals, costUsd: roundUsd(totals.costUsd) } };
  }

  /** The totals of the runs that started on the UTC day that begins at `dayStart`. */
  dayTotals(dayStart: number): UsageTotals {
    return this.db
      .select(usageSums)
      .from(agentRuns)
      .where(and(gte(agentRuns.startedAt, dayStart), lt(agentRuns.startedAt, dayStart + DAY_MS)))
      .get()!;
  }
}
