// The user's usage: a row per run (tokens, cost, duration), as the threads report them. Usage outlives
// its thread: a deleted thread's runs still count, and list with no thread name.
import { and, desc, eq, gte, type SQL } from "drizzle-orm";
import type { Run, UsageTotals } from "../../protocol";
import { agentRuns, threads } from "../db/schema";
import { toRun } from "../db/shapes";
import { usageSums } from "../db/usage-sums";
import { roundUsd } from "../lib/usd";
import type { UserDb } from "./db";

export interface UsageQuery {
  threadId?: string;
  since?: number;
  limit: number;
}


export class Usage {
  constructor(private readonly db: UserDb) {}

  upsert(row: typeof agentRuns.$inferInsert): void {
    this.db.insert(agentRuns).values(row).onConflictDoUpdate({ target: agentRuns.id, set: row }).run();
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
}
