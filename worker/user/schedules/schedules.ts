// The user's schedules across their threads, as the threads report them: the list GET /api/schedules
// answers (soonest first), where a schedule's id leads (to its thread), the per-user maximum, and the
// day's fires against the bound on unattended runs, each counted here in one step so schedules made or
// fired at once in several threads cannot pass it.
import type { Schedule } from "../../../protocol";
import { utcDayStart } from "../../lib/time";

export class UserSchedules {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS schedules (
      id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, next_run_at INTEGER, row TEXT
    )`);
    sql.exec("CREATE INDEX IF NOT EXISTS schedules_thread ON schedules (thread_id)");
    sql.exec("CREATE TABLE IF NOT EXISTS schedule_fires (id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, at INTEGER NOT NULL)");
  }

  /**
   * Counts a fire (its id names the schedule and its time: a retried alarm is the same fire) if the
   * user's fires today (UTC) are fewer than `perDay`; false past it.
   */
  countFire(id: string, threadId: string, perDay: number, now = Date.now()): boolean {
    const today = utcDayStart(now);
    // Only today's fires count: yesterday's rows go.
    this.sql.exec("DELETE FROM schedule_fires WHERE at < ?", today);
    if (this.sql.exec("SELECT 1 FROM schedule_fires WHERE id = ?", id).toArray().length) return true;
    const { n } = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM schedule_fires").one();
    if (n >= perDay) return false;
    this.sql.exec("INSERT INTO schedule_fires (id, thread_id, at) VALUES (?, ?, ?)", id, threadId, now);
    return true;
  }

  /** Counts a new schedule of `threadId` if the user has fewer than `max`; its row comes with the thread's report. */
  count(id: string, threadId: string, max: number): boolean {
    const { n } = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM schedules").one();
    if (n >= max) return false;
    this.sql.exec("INSERT OR IGNORE INTO schedules (id, thread_id) VALUES (?, ?)", id, threadId);
    return true;
  }

  /** A schedule as its thread reports it (its row, as GET /api/schedules answers it). */
  put(schedule: Record<string, unknown>): void {
    const nextRunAt = typeof schedule.nextRunAt === "number" ? schedule.nextRunAt : null;
    this.sql.exec(
      "INSERT OR REPLACE INTO schedules (id, thread_id, next_run_at, row) VALUES (?, ?, ?, ?)",
      String(schedule.id),
      String(schedule.threadId),
      nextRunAt,
      JSON.stringify(schedule),
    );
  }

  remove(id: string): void {
    this.sql.exec("DELETE FROM schedules WHERE id = ?", id);
  }

  /** Soonest first; disarmed ones (paused, or a one-time schedule that fired) last. */
  list(): Schedule[] {
    return this.sql
      .exec<{ row: string }>("SELECT row FROM schedules WHERE row IS NOT NULL ORDER BY next_run_at IS NULL, next_run_at, id")
      .toArray()
      .map((r) => JSON.parse(r.row) as Schedule);
  }

  threadOf(id: string): string | null {
    return this.sql.exec<{ thread_id: string }>("SELECT thread_id FROM schedules WHERE id = ?", id).toArray()[0]?.thread_id ?? null;
  }

  forgetThreads(threadIds: string[]): void {
    for (const id of threadIds) this.sql.exec("DELETE FROM schedules WHERE thread_id = ?", id);
  }
}
