// An outbox's flush to where its rows go (a sink: D1, or the owner's object): everything waiting in
// one write, retried by the object's alarm with backoff while the sink is away. The sink lags the
// object by at most one flush; nothing is lost while it is down, and nothing on a run's way waits for it.
// Two things would otherwise stop an outbox for good: a row the sink refuses (it would fail every
// write it rides in), and a sink away so long the outbox outgrows the object. Both end in the outbox's
// dead letters, logged, rather than in a retry that never succeeds or a row silently dropped.
import type { Alarms } from "./alarms";
import type { Logger } from "./logger";
import type { Outbox, OutboxEntry } from "./outbox";

/** The most entries an outbox keeps while its sink is away; the oldest beyond go to its dead letters. */
export const OUTBOX_LIMIT = 10_000;

export interface Sink {
  /** Writes the entries, in one round trip; throws if it could not. */
  write(entries: OutboxEntry[]): Promise<void>;
}

const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 5 * 60_000;

// SQLite's (and so D1's) errors about the rows themselves: writing them again cannot succeed.
const REFUSAL = /constraint failed|SQLITE_CONSTRAINT|SQLITE_TOOBIG|too big|datatype mismatch|SQLITE_MISMATCH/i;

/** Whether a write failed for its rows (for good), not for the sink (a retry may succeed). */
export function refusesRow(err: unknown): boolean {
  return REFUSAL.test(String(err)) || (err instanceof Error && err.cause !== undefined && REFUSAL.test(String(err.cause)));
}

export class OutboxFlush {
  private flushing: Promise<number> | null = null;
  private again = false;
  private failures = 0;
  private retryAt = 0;

  constructor(
    private readonly outbox: Outbox,
    private readonly sink: Sink,
    private readonly alarms: Alarms,
    private readonly logger: Logger,
    /** What the log lines call the sink. */
    private readonly to: string,
    private readonly limit = OUTBOX_LIMIT,
  ) {}

  /** What waits for the sink, and what it refused or the bound put aside. */
  state(): { waiting: number; dead: number } {
    return { waiting: this.outbox.size(), dead: this.outbox.deadCount() };
  }

  /**
   * Writes what waits in the outbox; resolves to the rows written, 0 if the flush failed (the alarm
   * retries it). One flush at a time: a call during a flush makes one more follow it.
   */
  flush(): Promise<number> {
    if (this.flushing) {
      this.again = true;
      return this.flushing;
    }
    this.flushing = this.run().finally(() => {
      this.flushing = null;
      if (this.again) {
        this.again = false;
        void this.flush();
      }
    });
    return this.flushing;
  }

  /** A flush by the alarm within `delayMs`: what is written meanwhile goes with it, in one write. */
  async soon(delayMs: number): Promise<void> {
    await this.alarms.request(Date.now() + delayMs);
  }

  /** The alarm's turn: a flush (a failed one once its backoff has passed). */
  async onAlarm(now = Date.now()): Promise<void> {
    if (this.outbox.size() === 0) return;
    if (now >= this.retryAt) {
      const rows = await this.flush();
      if (rows) this.logger.info(`flushed to ${this.to} after a retry`, { rows });
    } else await this.alarms.request(this.retryAt);
  }

  /** Resolves once nothing is being written (a delete waits for this before it empties the store). */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => {});
  }

  private async run(): Promise<number> {
    const entries = this.outbox.pending();
    if (entries.length === 0) return 0;
    try {
      await this.sink.write(entries);
      this.outbox.flushed(entries.map((e) => e.id));
      this.failures = 0;
      return entries.length;
    } catch (err) {
      return refusesRow(err) ? this.isolate(entries) : this.failed(entries, err);
    }
  }

  /**
   * After a refusal, the entries one at a time: the refused go to the dead letters and the rest are
   * written, up to a failure of the sink's own.
   */
  private async isolate(entries: OutboxEntry[]): Promise<number> {
    let written = 0;
    for (const [i, e] of entries.entries()) {
      try {
        await this.sink.write([e]);
        this.outbox.flushed([e.id]);
        written++;
      } catch (err) {
        if (!refusesRow(err)) return this.failed(entries.slice(i), err);
        const error = String(err);
        this.outbox.deadLetter([e], error);
        this.logger.warn(`${this.to} refused a row; it went to the dead letters`, { table: e.table, key: e.key, error });
      }
    }
    this.failures = 0;
    return written;
  }

  /** A retry after a backoff, the outbox held to its bound meanwhile. `entries`: those not written. */
  private async failed(entries: OutboxEntry[], err: unknown): Promise<number> {
    this.failures++;
    // Equal jitter: objects that failed together (D1 away for all of them) do not all retry together.
    const ceiling = Math.min(RETRY_BASE_MS * 2 ** (this.failures - 1), RETRY_MAX_MS);
    const delay = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
    this.retryAt = Date.now() + delay;
    this.bound(entries);
    this.logger.warn(`flush to ${this.to} failed; retrying`, { rows: entries.length, ...this.state(), attempt: this.failures, retryInMs: delay, error: String(err) });
    await this.alarms.request(this.retryAt);
    return 0;
  }

  /** The oldest entries beyond the limit go to the dead letters: a sink away for long cannot fill the object. */
  private bound(entries: OutboxEntry[]): void {
    const over = this.outbox.size() - this.limit;
    if (over <= 0) return;
    const error = `outbox past its bound (${this.limit} rows) while its sink was away`;
    const oldest = entries.slice(0, over);
    this.outbox.deadLetter(oldest, error);
    // One line for them all: past the bound, a line per row would flood the log.
    this.logger.warn(`flush to ${this.to} failed past the outbox's bound; its oldest rows went to the dead letters`, { rows: oldest.length, error });
  }
}
