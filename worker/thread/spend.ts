// A user's spend today (UTC), held against USER_DAILY_COST_USD. The user's object keeps the ledger
// (worker/user/) and is the only judge: while a cap is set, a post asks it for the total, and every run
// reserves its worst-case cost there before its model request, whichever thread it is in, so runs
// started at once pass the cap by at most one run's cost in all. (A thread's own idea of the total goes
// stale as soon as another thread runs: it decides nothing.) With no cap, nothing is asked. A total
// that cannot be learned is never $0: while a cap is set, the post or the run is refused.
import type { Config } from "../env";
import type { Logger } from "../lib/logger";
import { DAY_MS, utcDayStart } from "../lib/time";
import type { UserApi } from "../user/stub";
import type { Alarms } from "../lib/alarms";
import type { RoomError } from "./room-reply";
import type { CacheStore } from "./store/cache";

const PENDING = "spend-pending";
const SETTLE_RETRY_MS = 30_000;

/** A run of this thread whose cost the user's object has not acknowledged yet. */
interface Pending {
  runId: string;
  threadId: string;
  at: number;
  usd: number;
}

export class SpendGuard {
  private pending: Pending[];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly store: CacheStore,
    private readonly alarms: Alarms,
    private readonly user: (ownerId: string) => UserApi,
    private readonly config: Pick<Config, "dailyCostUsd">,
    private readonly logger: Logger,
  ) {
    this.pending = store.get<Pending[]>(PENDING)?.value ?? [];
    // Costs a restart left unacknowledged go again by the alarm, even if no run comes.
    if (this.pending.length) void alarms.request(Date.now() + SETTLE_RETRY_MS);
  }

  /** For a post: null, or the refusal (the cap reached, or the total unknown). */
  async check(ownerId: string, now = Date.now()): Promise<RoomError | null> {
    const cap = this.config.dailyCostUsd;
    if (cap === null) return null;
    try {
      await this.flush(ownerId);
      const { spentUsd } = await this.user(ownerId).spend();
      return spentUsd >= cap ? capReached(cap, spentUsd, now) : null;
    } catch (err) {
      return this.unknown(err);
    }
  }

  /**
   * For a run about to call the model, whose cost is at most `worst()`: null, or the refusal. It
   * reserves that much with the user's object, which settles to the real cost after (a failed run's,
   * what it spent: the rest is released).
   */
  async reserve(ownerId: string, run: { runId: string; threadId: string }, worst: () => Promise<number>, now = Date.now()): Promise<RoomError | null> {
    const cap = this.config.dailyCostUsd;
    if (cap === null) return null;
    try {
      const worstUsd = await worst();
      await this.flush(ownerId);
      const reservation = await this.user(ownerId).reserve(run, worstUsd, cap);
      return reservation.ok ? null : capReached(cap, reservation.spentUsd, now);
    } catch (err) {
      return this.unknown(err);
    }
  }

  /** A run of this thread cost `usd`; the user's object hears of it with `flush`. */
  settled(run: Pending): void {
    if (this.config.dailyCostUsd === null) return;
    this.pending.push(run);
    this.store.put(PENDING, this.pending, run.at);
  }

  /** Tells the user's object this thread's costs; one flush at a time, a failed one kept for the next. */
  flush(ownerId: string): Promise<void> {
    this.flushing ??= this.settleAll(ownerId).finally(() => (this.flushing = null));
    return this.flushing;
  }

  /** `flush` after a run, off its way: what fails is kept, and the alarm tries it again. */
  async settleLater(ownerId: string): Promise<void> {
    try {
      await this.flush(ownerId);
    } catch (err) {
      this.logger.warn("spend not settled yet; the alarm tries again", { error: String(err), pending: this.pending.length });
      await this.alarms.request(Date.now() + SETTLE_RETRY_MS);
    }
  }

  /** The alarm's turn: costs the user's object has not acknowledged go again. */
  async onAlarm(ownerId: string | undefined): Promise<void> {
    if (ownerId && this.pending.length) await this.settleLater(ownerId);
  }

  private async settleAll(ownerId: string): Promise<void> {
    while (this.pending.length) {
      const run = this.pending[0];
      await this.user(ownerId).settle(run, run.usd);
      this.pending.shift();
      this.store.put(PENDING, this.pending, Date.now());
    }
  }

  private unknown(err: unknown): RoomError {
    this.logger.warn("spend could not be learned; refusing while a cap is set", { error: String(err) });
    return { code: "unavailable", message: "Your spend today could not be checked against your daily cap; try again shortly", retryAfterSec: 5 };
  }
}

function capReached(cap: number, spent: number, now: number): RoomError {
  return {
    code: "rate_limited",
    message: `You have reached your daily spend cap of $${cap.toFixed(2)} (spent $${spent.toFixed(2)} today); it resets at 00:00 UTC`,
    retryAfterSec: Math.ceil((utcDayStart(now) + DAY_MS - now) / 1000),
  };
}
