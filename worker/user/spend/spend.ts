// What the user spends: every run's usage as the threads report it, and today's ledger against the
// daily cap, with reservations of runs under way. The cap's figure comes from the caller's
// configuration; the user's object is the one judge of it, for all their threads at once.
import type { Run, UsageTotals } from "../../../protocol";
import type { agentRuns, UsageDayRow } from "../../db/schema";
import { roundUsd } from "../../lib/usd";
import type { UserStore } from "../store";
import { SpendLedger, type Reservation, type SpendState } from "./ledger";
import { Usage, type UsageQuery } from "./usage";

/** A run as the ledger names it. */
export interface LedgerRun {
  runId: string;
  threadId: string;
}

/** How long a day's changed roll-up waits for the next (D1 gets the user's usage in one write a minute at most). */
export const USAGE_DAYS_FLUSH_MS = 60_000;

export class Spend {
  private readonly usage: Usage;
  private readonly ledger: SpendLedger;

  constructor(store: UserStore) {
    this.usage = new Usage(store);
    this.ledger = new SpendLedger(store.sql);
  }

  today(): SpendState {
    return this.ledger.today();
  }

  reserve(run: LedgerRun, usd: number, capUsd: number): Reservation {
    return this.ledger.reserve(run.runId, run.threadId, usd, capUsd);
  }

  settle(run: LedgerRun & { at: number }, usd: number): SpendState {
    return this.ledger.settle(run.runId, run.threadId, usd, run.at);
  }

  /** A run's usage as its thread reports it. */
  record(row: typeof agentRuns.$inferInsert): void {
    this.usage.upsert(row);
  }

  /** The user's usage on the UTC day that begins at `dayStart`, whole, as D1's roll-up keeps it. */
  day(ownerId: string, dayStart: number, now = Date.now()): UsageDayRow {
    const totals = this.usage.dayTotals(dayStart);
    return { day: new Date(dayStart).toISOString().slice(0, 10), ownerId, ...totals, updatedAt: now };
  }

  /** Today's runs from the usage imported from D1, into the ledger (the import's last step). */
  importToday(): void {
    this.ledger.importToday();
  }

  metrics(q: UsageQuery): { runs: Run[]; totals: UsageTotals; spentTodayUsd: number } {
    return { ...this.usage.runs(q), spentTodayUsd: roundUsd(this.ledger.today().spentUsd) };
  }
}
