// Where the thread's rows go after its own store: D1 (the thread's metadata, in the directory shared
// across users) and the owner's object (the user's directory, search and usage), each through its own
// outbox, flushed after each run (the owner's object as its end events leave, D1 a moment later) and
// after a change outside runs, and retried by the alarm apart. Neither is on a run's way, and no
// answer waits for D1.
import type { D1Usage } from "../db/client";
import { d1Sink } from "../db/mirror";
import type { Alarms } from "../lib/alarms";
import type { Logger } from "../lib/logger";
import type { Meter } from "../lib/meter";
import { OutboxFlush, type Sink } from "../lib/outbox-flush";
import type { UserApi } from "../user/stub";
import type { RoomStore } from "./store";

/** What a run's flushes wrote to D1, its D1 round trips, and what is left in the D1 outbox (waiting, refused). */
export interface Mirrored {
  rows: number;
  d1RoundTrips: number;
  waiting: number;
  dead: number;
}

export class Outflow {
  private readonly mirror: OutboxFlush;
  private readonly report: OutboxFlush;

  constructor(
    private readonly store: RoomStore,
    d1: D1Database,
    private readonly usage: D1Usage,
    user: (ownerId: string) => UserApi,
    alarms: Alarms,
    logger: Logger,
    meter: Meter,
  ) {
    this.mirror = new OutboxFlush(store.outbox, d1Sink(d1), alarms, logger, "D1");
    this.report = new OutboxFlush(store.report, ownerSink(store, user, meter), alarms, logger, "the user's object");
  }

  /** Both flushes; resolves when both are done (or have failed, to be retried). */
  async flush(): Promise<void> {
    await Promise.all([this.mirror.flush(), this.report.flush()]);
  }

  /** D1's flush after a run (off the next message's way): what D1 got, and its round trips. */
  async mirrored(): Promise<Mirrored> {
    const before = this.usage.roundTrips;
    const rows = await this.mirror.flush();
    return { rows, d1RoundTrips: this.usage.roundTrips - before, ...this.mirror.state() };
  }

  /** Waits for the owner's object to hold the thread as it is now (a new or renamed thread is listed). */
  async reported(): Promise<void> {
    await this.report.flush();
  }

  /** A change outside runs: the owner's object has it when this resolves; D1 gets it after, unwaited. */
  async changed(waitUntil: (p: Promise<unknown>) => void): Promise<void> {
    await this.report.flush();
    waitUntil(this.mirror.flush());
  }

  async onAlarm(): Promise<void> {
    await Promise.all([this.mirror.onAlarm(), this.report.onAlarm()]);
  }

  async settled(): Promise<void> {
    await Promise.all([this.mirror.settled(), this.report.settled()]);
  }

  /** Work left by the last instance: the alarm picks it up. */
  waiting(): boolean {
    return this.store.outbox.size() > 0 || this.store.report.size() > 0;
  }
}

/** The owner's object as the report's sink; the rows it took there are counted with this object's. */
function ownerSink(store: RoomStore, user: (ownerId: string) => UserApi, meter: Meter): Sink {
  return {
    async write(entries) {
      const ownerId = store.thread.get()?.ownerId;
      if (!ownerId || entries.length === 0) return;
      meter.owner(await user(ownerId).report(entries));
    },
  };
}
