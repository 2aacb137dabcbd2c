// When a schedule runs: once at a time, every N seconds, or on a five-field cron expression read in an
// IANA timezone (croner does the calendar: daylight-saving changes, month lengths, `L`, `#`).
import { Cron } from "croner";

/** Exactly one of the three. */
export type ScheduleTime = { at: number; every?: undefined; cron?: undefined } | { every: number; at?: undefined; cron?: undefined } | { cron: string; at?: undefined; every?: undefined };

/** Why `expr` is not a five-field cron expression croner reads, or null when it is. */
export function cronProblem(expr: string, timezone: string): string | null {
  const fields = expr.trim().split(/\s+/);
  if (fields.length !== 5) return `a cron expression has five fields (minute hour day month weekday); this one has ${fields.length}`;
  try {
    new Cron(expr.trim(), { timezone, paused: true });
    return null;
  } catch (err) {
    return `not a cron expression: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** How many of a cron expression's coming fires are measured against the shortest interval (the runtime floor covers the rarer ones). */
const GAP_SAMPLE = 100;

/**
 * The shortest gap (ms) between consecutive fires among a cron expression's next GAP_SAMPLE after
 * `from`, stopping at the first under `floorMs`; null when it fires fewer than twice.
 */
export function shortestCronGap(expr: string, timezone: string, from: number, floorMs: number): number | null {
  const cron = new Cron(expr.trim(), { timezone, paused: true });
  let shortest: number | null = null;
  let prev = cron.nextRun(new Date(from));
  for (let i = 1; prev && i < GAP_SAMPLE && (shortest === null || shortest >= floorMs); i++) {
    const next = cron.nextRun(prev);
    if (!next) break;
    const gap = next.getTime() - prev.getTime();
    shortest = shortest === null ? gap : Math.min(shortest, gap);
    prev = next;
  }
  return shortest;
}

/**
 * The next run after a fire that was due at `due` and went at `now`: never sooner than `floorMs` after
 * `due`, so no kind of schedule (a cron across a daylight-saving change, a calendar's rare pair of
 * close times) fires more often than the shortest interval; the times of an interval stay in phase.
 */
export function nextRunAfterFire(time: ScheduleTime, timezone: string, due: number, now: number, anchor: number, floorMs: number): number | null {
  return nextRun(time, timezone, Math.max(now, due + floorMs - 1), anchor);
}

/**
 * The first run strictly after `after`: null for a one-time schedule whose time has gone by. An
 * interval keeps its phase (from `anchor`, its first time), so a late fire does not shift the ones after it.
 */
export function nextRun(time: ScheduleTime, timezone: string, after: number, anchor: number): number | null {
  if (time.at !== undefined) return time.at > after ? time.at : null;
  if (time.every !== undefined) {
    const step = time.every * 1000;
    if (anchor > after) return anchor;
    return anchor + (Math.floor((after - anchor) / step) + 1) * step;
  }
  const next = new Cron(time.cron, { timezone, paused: true }).nextRun(new Date(after));
  return next ? next.getTime() : null;
}

/**
 * The moment a wall clock in `timezone` shows `hour:minute` on the calendar day that holds `from`
 * there, `days` later (a time a daylight-saving change skips comes out as the hour after it).
 */
export function wallClock(timezone: string, from: number, days: number, hour: number, minute: number): number {
  const [y, mo, d] = new Intl.DateTimeFormat("en-CA", { timeZone: timezone, year: "numeric", month: "2-digit", day: "2-digit" })
    .format(new Date(from))
    .split("-")
    .map(Number);
  const date = new Date(Date.UTC(y, mo - 1, d + days));
  return localMoment(timezone, date.toISOString().slice(0, 10), hour, minute);
}

/** The moment a wall clock in `timezone` shows `hour:minute` on `date` (YYYY-MM-DD). */
export function localMoment(timezone: string, date: string, hour: number, minute: number): number {
  const local = `${date}T${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}:00`;
  // croner reads an ISO local time in the timezone; from the epoch on, its next run is that moment.
  return new Cron(local, { timezone, paused: true }).nextRun(new Date(0))!.getTime();
}
