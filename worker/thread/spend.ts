// A user's spend today (UTC), held against USER_DAILY_COST_USD before a message is accepted. The
// total is D1's (agent_runs across all the user's threads), read in each run's after-flush and kept in
// the object's cache, plus the costs of this thread's runs since that read. A post waits on D1 only
// when the object holds no total for today, or the user is within NEAR of the cap and the total is
// older than step0FreshMs. Otherwise what the user's other threads spent reaches this one with its
// next run's flush: a user passes the cap by at most one run per thread (and the runs under way).
import { and, eq, gte, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { agentRuns } from "../db/schema";
import type { Config } from "../env";
import type { Logger } from "../lib/logger";
import { DAY_MS, utcDayStart } from "../lib/time";
import type { RoomError } from "./room-reply";
import { scalarOf, statementOf, type BatchRead } from "../db/batch";
import type { CacheStore } from "./store/cache";

const KEY = "spend";
const NEAR = 0.8;

interface Held {
  ownerId: string;
  day: number;
  usd: number;
  fetchedAt: number;
}


export class SpendGuard {
  private held: Held | null = null;
  /** This thread's run costs not yet in `held` (a read that began before they ended missed them). */
  private local: { at: number; usd: number }[] = [];
  private reading: Promise<void> | null = null;

  constructor(
    private readonly store: CacheStore,
    private readonly db: Db,
    private readonly config: Pick<Config, "dailyCostUsd" | "step0FreshMs">,
    private readonly logger: Logger,
  ) {}

  /** null: the user may start a run now; else the refusal, naming the cap and when it resets. */
  async check(ownerId: string, now = Date.now()): Promise<RoomError | null> {
    const cap = this.config.dailyCostUsd;
    if (cap === null) return null;
    let spent = this.spentToday(ownerId, now);
    const stale = (spent ?? 0) >= cap * NEAR && now - (this.held?.fetchedAt ?? 0) > this.config.step0FreshMs;
    if (spent === null || stale) {
      // Posts that arrive together share one read.
      this.reading ??= this.readNow(ownerId, now).finally(() => (this.reading = null));
      await this.reading;
      spent = this.spentToday(ownerId, now) ?? 0;
    }
    if (spent < cap) return null;
    const retryAfterSec = Math.ceil((utcDayStart(now) + DAY_MS - now) / 1000);
    return {
      code: "rate_limited",
      message: `You have reached your daily spend cap of $${cap.toFixed(2)} (spent $${spent.toFixed(2)} today); it resets at 00:00 UTC`,
      retryAfterSec,
    };
  }

  private async readNow(ownerId: string, now: number): Promise<void> {
    const read = this.read(ownerId, now);
    try {
      read.apply(await this.db.$client.batch(read.statements));
    } catch (err) {
      // D1 away: a cap is not worth refusing every post for; the next flush reads again.
      this.logger.warn("spend could not be read; using what is held", { error: String(err) });
    }
  }

  /** The user's spend today as far as this object knows; null when it holds no total for today. */
  spentToday(ownerId: string, now = Date.now()): number | null {
    const h = this.load();
    if (!h || h.ownerId !== ownerId || h.day !== utcDayStart(now)) return null;
    return h.usd + this.local.filter((l) => l.at >= h.fetchedAt).reduce((sum, l) => sum + l.usd, 0);
  }

  /** A run of this thread cost `usd`. */
  add(usd: number, at = Date.now()): void {
    if (this.config.dailyCostUsd === null || usd <= 0) return;
    this.local.push({ at, usd });
  }

  /**
   * The read that refreshes the total, for every run's after-flush: one statement more in a batch that
   * goes anyway, after the run's own rows, so the total includes them and the user's other threads.
   */
  revalidation(ownerId: string, now = Date.now()): BatchRead | null {
    return this.config.dailyCostUsd === null ? null : this.read(ownerId, now);
  }

  private load(): Held | null {
    if (!this.held) this.held = this.store.get<Held>(KEY)?.value ?? null;
    return this.held;
  }

  private read(ownerId: string, now: number): BatchRead {
    const day = utcDayStart(now);
    return {
      statements: [
        statementOf(
          this.db.$client,
          this.db
            .select({ usd: sql<number>`coalesce(sum(${agentRuns.costUsd}), 0)` })
            .from(agentRuns)
            .where(and(eq(agentRuns.ownerId, ownerId), gte(agentRuns.startedAt, day))),
        ),
      ],
      apply: ([result]) => {
        const usd = Number(scalarOf(result) ?? 0);
        this.held = { ownerId, day, usd, fetchedAt: now };
        this.local = this.local.filter((l) => l.at >= now);
        this.store.put(KEY, this.held, now);
      },
    };
  }
}
