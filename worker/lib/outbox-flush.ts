// An outbox's flush to where its rows go (a sink: D1, or the owner's object): everything waiting in
// one write, retried by the object's alarm with backoff while the sink is away. The sink lags the
// object by at most one flush; nothing is lost while it is down, and nothing on a run's way waits for it.
import type { Alarms } from "./alarms";
import type { Logger } from "./logger";
import type { Outbox, OutboxEntry } from "./outbox";

/** Reads that ride along with a flush (a D1 batch's extra statements); a sink that cannot, ignores them. */
export interface RidingReads {
  statements: unknown[];
}

export interface Sink<R extends RidingReads = RidingReads> {
  /** Writes the entries (and runs `reads` in the same round trip); throws if it could not. */
  write(entries: OutboxEntry[], reads: R | null): Promise<void>;
}

const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 5 * 60_000;

export class OutboxFlush<R extends RidingReads = RidingReads> {
  private flushing: Promise<number> | null = null;
  private again = false;
  private pendingReads: R | null = null;
  private failures = 0;
  private retryAt = 0;

  constructor(
    private readonly outbox: Outbox,
    private readonly sink: Sink<R>,
    private readonly alarms: Alarms,
    private readonly logger: Logger,
    /** What the log lines call the sink. */
    private readonly to: string,
  ) {}

  /**
   * Writes what waits in the outbox (and runs `reads` in the same round trip); resolves to the rows
   * written, 0 if the flush failed (the alarm retries it). One flush at a time: a call during a flush
   * makes one more follow it.
   */
  flush(reads?: R | null): Promise<number> {
    if (this.flushing) {
      this.again = true;
      if (reads) this.pendingReads = reads;
      return this.flushing;
    }
    this.flushing = this.run(reads ?? null).finally(() => {
      this.flushing = null;
      if (this.again) {
        this.again = false;
        const next = this.pendingReads;
        this.pendingReads = null;
        void this.flush(next);
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

  private async run(reads: R | null): Promise<number> {
    const entries = this.outbox.pending();
    if (entries.length === 0 && !reads?.statements.length) return 0;
    try {
      await this.sink.write(entries, reads);
      this.outbox.flushed(entries.map((e) => e.id));
      this.failures = 0;
      return entries.length;
    } catch (err) {
      this.failures++;
      const delay = Math.min(RETRY_BASE_MS * 2 ** (this.failures - 1), RETRY_MAX_MS);
      this.retryAt = Date.now() + delay;
      this.logger.warn(`flush to ${this.to} failed; retrying`, { rows: entries.length, attempt: this.failures, retryInMs: delay, error: String(err) });
      await this.alarms.request(this.retryAt);
      return 0;
    }
  }
}
