// The thread's rows go to D1 through the outbox: one batch per flush (per run, after its last event),
// idempotent upserts, retried by the alarm with backoff while D1 is away. D1 lags the object by at
// most one flush; nothing is lost while it is down, and nothing on a run's way waits for it.
import type { BatchRead } from "../db/batch";
import type { D1Usage } from "../db/client";
import { mirrorStatements, type MirrorRows } from "../db/mirror";
import type { Logger } from "../lib/logger";
import type { Alarms } from "./alarms";
import type { Outbox, OutboxEntry } from "./store/outbox";

/** What a run's mirror flush wrote, and its D1 round trips. */
export interface Mirrored {
  rows: number;
  d1RoundTrips: number;
}

const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 5 * 60_000;

export class Mirror {
  private flushing: Promise<number> | null = null;
  private again = false;
  private failures = 0;
  private retryAt = 0;

  constructor(
    private readonly outbox: Outbox,
    private readonly d1: D1Database,
    private readonly usage: D1Usage,
    private readonly alarms: Alarms,
    private readonly logger: Logger,
  ) {}

  /**
   * Writes what waits in the outbox (and runs `reads` in the same round trip); resolves to the rows
   * written, 0 if the flush failed (the alarm retries it). One flush at a time: a call during a flush
   * makes one more follow it.
   */
  flush(reads?: BatchRead | null): Promise<number> {
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

  private pendingReads: BatchRead | null = null;

  /** The flush after a run (with the reads that ride along): what it wrote, and its D1 round trips. */
  async afterRun(reads: BatchRead | null): Promise<Mirrored> {
    const before = this.usage.roundTrips;
    const rows = await this.flush(reads);
    return { rows, d1RoundTrips: this.usage.roundTrips - before };
  }

  /** The alarm's turn: retries a failed flush once its backoff has passed. */
  async onAlarm(now = Date.now()): Promise<void> {
    if (this.outbox.size() === 0) return;
    if (now >= this.retryAt) {
      const rows = await this.flush();
      if (rows) this.logger.info("mirror flushed after a retry", { rows });
    } else await this.alarms.request(this.retryAt);
  }

  /** Resolves once nothing is being written (a delete waits for this before it empties the store). */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => {});
  }

  private async run(reads: BatchRead | null): Promise<number> {
    const entries = this.outbox.pending();
    const statements = [...mirrorStatements(this.d1, rowsOf(entries)), ...(reads?.statements ?? [])];
    if (statements.length === 0) return 0;
    try {
      const results = await this.d1.batch(statements);
      this.outbox.flushed(entries.map((e) => e.id));
      reads?.apply(results.slice(results.length - reads.statements.length));
      this.failures = 0;
      return entries.length;
    } catch (err) {
      this.failures++;
      const delay = Math.min(RETRY_BASE_MS * 2 ** (this.failures - 1), RETRY_MAX_MS);
      this.retryAt = Date.now() + delay;
      this.logger.warn("mirror flush failed; retrying", { rows: entries.length, attempt: this.failures, retryInMs: delay, error: String(err) });
      await this.alarms.request(this.retryAt);
      return 0;
    }
  }
}

function rowsOf(entries: OutboxEntry[]): MirrorRows {
  const rows: MirrorRows = { threads: [], messages: [], agent_runs: [], metrics: [] };
  for (const e of entries) (rows[e.table] as Record<string, unknown>[]).push(e.row);
  return rows;
}
