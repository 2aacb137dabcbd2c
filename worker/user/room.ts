// UserRoom: one Durable Object per user, the single writer of what spans the user's threads. It
// holds the spend ledger: each run's cost, and what runs near the daily cap reserve before their
// model request, so runs started at once pass the cap by at most one run's cost in all. A user's
// runs from before this object existed are read from D1 once (their ids keep them from counting twice).
import { DurableObject } from "cloudflare:workers";
import { and, eq, gte } from "drizzle-orm";
import { database } from "../db/client";
import { agentRuns } from "../db/schema";
import type { Env } from "../env";
import { utcDayStart } from "../lib/time";
import { SpendLedger, type Reservation, type SpendState } from "./ledger";

export class UserRoom extends DurableObject<Env> {
  private readonly ledger: SpendLedger;
  private importing: Promise<void> | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.ledger = new SpendLedger(ctx.storage.sql);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  }

  async spend(userId: string): Promise<SpendState> {
    await this.imported(userId);
    return this.ledger.today();
  }

  async reserve(userId: string, run: { runId: string; threadId: string }, usd: number, capUsd: number): Promise<Reservation> {
    await this.imported(userId);
    return this.ledger.reserve(run.runId, run.threadId, usd, capUsd);
  }

  async settle(userId: string, run: { runId: string; threadId: string; at: number }, usd: number): Promise<SpendState> {
    await this.imported(userId);
    return this.ledger.settle(run.runId, run.threadId, usd, run.at);
  }

  /** Today's runs recorded in D1 before this object kept the ledger, once; a failed read throws. */
  private imported(userId: string): Promise<void> {
    const done = this.ctx.storage.sql.exec("SELECT 1 FROM meta WHERE key = 'imported'").toArray().length > 0;
    if (done) return Promise.resolve();
    this.importing ??= this.importFromD1(userId).finally(() => (this.importing = null));
    return this.importing;
  }

  private async importFromD1(userId: string): Promise<void> {
    const db = database(this.env);
    const rows = await db
      .select({ runId: agentRuns.id, threadId: agentRuns.threadId, usd: agentRuns.costUsd, at: agentRuns.startedAt })
      .from(agentRuns)
      .where(and(eq(agentRuns.ownerId, userId), gte(agentRuns.startedAt, utcDayStart(Date.now()))));
    this.ctx.storage.transactionSync(() => {
      this.ledger.importSettled(rows);
      this.ctx.storage.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('imported', '1')");
    });
  }
}
