// A thread's schedules, in its object's SQLite: each one's prompt and time, and when it runs next.
// The earliest `next_run_at` of the enabled ones is what the thread's alarm waits for.
import type { Schedule, ScheduleBody, ScheduleStatus } from "../../../protocol";
import { nextRun, nextRunAfterFire, type ScheduleTime } from "../../lib/schedule-time";

type Row = {
  id: string;
  name: string;
  prompt: string;
  at: number | null;
  every: number | null;
  cron: string | null;
  timezone: string;
  enabled: number;
  anchor: number;
  next_run_at: number | null;
  last_run_at: number | null;
  last_status: ScheduleStatus | null;
  created_at: number;
};

const timeOf = (r: Pick<Row, "at" | "every" | "cron">): ScheduleTime =>
  r.at !== null ? { at: r.at } : r.every !== null ? { every: r.every } : { cron: r.cron! };

/** The label a schedule shows when it was given none: its prompt's start. */
const labelOf = (prompt: string) => {
  const line = prompt.trim().split("\n")[0];
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
};

export class ScheduleBook {
  constructor(
    private readonly sql: SqlStorage,
    private readonly threadId: () => string,
  ) {}

  add(id: string, b: ScheduleBody & { prompt: string }, now: number): Schedule {
    const timezone = b.timezone ?? "UTC";
    // An interval counts from its creation: its first run is one interval later.
    const anchor = b.every !== undefined ? now + b.every * 1000 : now;
    const enabled = b.enabled ?? true;
    const row: Row = {
      id,
      name: b.name ?? labelOf(b.prompt),
      prompt: b.prompt,
      at: b.at ?? null,
      every: b.every ?? null,
      cron: b.cron ?? null,
      timezone,
      enabled: enabled ? 1 : 0,
      anchor,
      next_run_at: null,
      last_run_at: null,
      last_status: null,
      created_at: now,
    };
    row.next_run_at = enabled ? nextRun(timeOf(row), timezone, now, anchor) : null;
    this.sql.exec(
      `INSERT INTO schedules (id, name, prompt, at, every, cron, timezone, enabled, anchor, next_run_at, last_run_at, last_status, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ...Object.values(row),
    );
    return this.present(row);
  }

  list(): Schedule[] {
    return this.rows("SELECT * FROM schedules ORDER BY created_at").map((r) => this.present(r));
  }

  get(id: string): Schedule | null {
    const [row] = this.rows("SELECT * FROM schedules WHERE id = ?", id);
    return row ? this.present(row) : null;
  }

  /** New fields; a new time, timezone or a re-enable counts the next run again from now. */
  update(id: string, b: ScheduleBody, now: number): Schedule | null {
    const [old] = this.rows("SELECT * FROM schedules WHERE id = ?", id);
    if (!old) return null;
    const timed = [b.at, b.every, b.cron].some((t) => t !== undefined);
    const row: Row = {
      ...old,
      name: b.name ?? old.name,
      prompt: b.prompt ?? old.prompt,
      ...(timed ? { at: b.at ?? null, every: b.every ?? null, cron: b.cron ?? null } : {}),
      timezone: b.timezone ?? old.timezone,
      enabled: b.enabled === undefined ? old.enabled : b.enabled ? 1 : 0,
    };
    if (timed && row.every !== null) row.anchor = now + row.every * 1000;
    const recount = timed || b.timezone !== undefined || (b.enabled === true && !old.enabled);
    // A one-time schedule that fired stays disarmed unless given a new time.
    if (!row.enabled) row.next_run_at = null;
    else if (recount) row.next_run_at = nextRun(timeOf(row), row.timezone, now, row.anchor);
    this.write(row);
    return this.present(row);
  }

  remove(id: string): boolean {
    return this.sql.exec("DELETE FROM schedules WHERE id = ? RETURNING id", id).toArray().length > 0;
  }

  /** The enabled schedules whose time has come, the earliest first. */
  due(now: number): Schedule[] {
    return this.rows("SELECT * FROM schedules WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at", now).map((r) =>
      this.present(r),
    );
  }

  /**
   * Fired at `now`: the next run is the first after now, so runs missed while the deployment was
   * down make one fire, not one each, and at least `floorMs` after the time that was due. A one-time
   * schedule disarms. `status` is set when the fire was refused.
   */
  fired(id: string, now: number, floorMs: number, status: ScheduleStatus | null = null): Schedule | null {
    const [row] = this.rows("SELECT * FROM schedules WHERE id = ?", id);
    if (!row) return null;
    row.last_run_at = now;
    row.last_status = status;
    row.next_run_at = nextRunAfterFire(timeOf(row), row.timezone, row.next_run_at ?? now, now, row.anchor, floorMs);
    this.write(row);
    return this.present(row);
  }

  /** Paused without firing (its owner's access is gone): disarmed until turned on again, its last status failed. */
  paused(id: string): Schedule | null {
    const [row] = this.rows("SELECT * FROM schedules WHERE id = ?", id);
    if (!row) return null;
    row.enabled = 0;
    row.next_run_at = null;
    row.last_status = "failed";
    this.write(row);
    return this.present(row);
  }

  /** The run a fire started has ended. */
  settle(id: string, status: ScheduleStatus): Schedule | null {
    const [row] = this.rows("SELECT * FROM schedules WHERE id = ?", id);
    if (!row) return null;
    row.last_status = status;
    this.write(row);
    return this.present(row);
  }

  /** When the alarm must wake for the next fire, or null. */
  nextAt(): number | null {
    return this.sql.exec<{ t: number | null }>("SELECT min(next_run_at) AS t FROM schedules WHERE enabled = 1").one().t;
  }

  private rows(query: string, ...params: unknown[]): Row[] {
    return this.sql.exec<Row>(query, ...params).toArray();
  }

  private write(r: Row): void {
    this.sql.exec(
      `UPDATE schedules SET name = ?, prompt = ?, at = ?, every = ?, cron = ?, timezone = ?, enabled = ?, anchor = ?,
       next_run_at = ?, last_run_at = ?, last_status = ? WHERE id = ?`,
      r.name,
      r.prompt,
      r.at,
      r.every,
      r.cron,
      r.timezone,
      r.enabled,
      r.anchor,
      r.next_run_at,
      r.last_run_at,
      r.last_status,
      r.id,
    );
  }

  private present(r: Row): Schedule {
    return {
      id: r.id,
      threadId: this.threadId(),
      name: r.name,
      prompt: r.prompt,
      at: r.at,
      every: r.every,
      cron: r.cron,
      timezone: r.timezone,
      enabled: r.enabled === 1,
      nextRunAt: r.enabled === 1 ? r.next_run_at : null,
      lastRunAt: r.last_run_at,
      lastStatus: r.last_status,
      createdAt: r.created_at,
    };
  }
}
