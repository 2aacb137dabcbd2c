// Times in an IANA timezone: the browser's own (sent with every thread, so that the model reads
// "tomorrow at 9" as the user means it), a wall-clock time there as a moment, and a moment shown there.

import { isTimeZone } from "../../../protocol";

export { isTimeZone };

/** The browser's timezone, or undefined when it has none the server would take ("Etc/Unknown"). */
export function browserTimeZone(): string | undefined {
  try {
    const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return tz && tz !== "Etc/Unknown" && isTimeZone(tz) ? tz : undefined;
  } catch {
    return undefined;
  }
}

const partsFormats = new Map<string, Intl.DateTimeFormat>();

/** The wall clock in `tz` at `ts`, as numbers. */
function wallClock(ts: number, tz: string) {
  let format = partsFormats.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    partsFormats.set(tz, format);
  }
  const part: Record<string, number> = {};
  for (const p of format.formatToParts(ts)) if (p.type !== "literal") part[p.type] = Number(p.value);
  return { year: part.year, month: part.month, day: part.day, hour: part.hour % 24, minute: part.minute, second: part.second };
}

/** How far `tz`'s wall clock is ahead of UTC at `ts`, in ms. */
function offsetAt(ts: number, tz: string): number {
  const w = wallClock(ts, tz);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(ts / 1000) * 1000;
}

/**
 * The moment a wall clock in `tz` shows `local` ("YYYY-MM-DDTHH:mm", a datetime-local input's
 * value), or NaN. A time a daylight-saving change skips comes out an hour later; a time it repeats,
 * the first of the two.
 */
export function zonedTimeToEpoch(local: string, tz: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!m || !isTimeZone(tz)) return NaN;
  const [, y, mo, d, h, mi, s] = m.map(Number);
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s || 0);
  // The offsets a day either side: one of them is in force then (a day holds one change at most).
  const candidates = [asUtc - offsetAt(asUtc - 86_400_000, tz), asUtc - offsetAt(asUtc + 86_400_000, tz)];
  const valid = candidates.filter((t) => offsetAt(t, tz) === asUtc - t);
  return valid.length ? Math.min(...valid) : Math.max(...candidates);
}

const pad = (n: number) => String(n).padStart(2, "0");

/** `ts` as a datetime-local input's value ("YYYY-MM-DDTHH:mm") on a wall clock in `tz`. */
export function epochToZonedInput(ts: number, tz: string): string {
  const w = wallClock(ts, tz);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}`;
}

/** The calendar day holding `ts` in `tz`, as a day number (days since 1970-01-01). */
function dayNumber(ts: number, tz: string): number {
  const w = wallClock(ts, tz);
  return Date.UTC(w.year, w.month - 1, w.day) / 86_400_000;
}

/** A duration as "5 s", "3 min", "2 h", "4 days" (rounded down: "in 59 s" never says a minute). */
export function shortDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h`;
  const days = Math.floor(s / 86_400);
  return `${days} ${days === 1 ? "day" : "days"}`;
}

/**
 * A moment on a wall clock in `tz`, said from `now`: "today 14:05:07 (in 12 s)", "tomorrow 09:00
 * (in 18 h)", "Mon 09:00", "3 Jun 09:00", "3 Jun 2027 09:00". Seconds show when it is within the
 * hour; `relative: false` leaves out the part in brackets.
 */
export function formatMoment(ts: number, now: number, tz: string, { locale, relative = true }: { locale?: string; relative?: boolean } = {}): string {
  const near = Math.abs(ts - now) < 3_600_000;
  const time = new Intl.DateTimeFormat(locale, {
    timeZone: tz,
    hour: "2-digit",
    minute: "2-digit",
    ...(near ? { second: "2-digit" } : {}),
    hourCycle: "h23",
  }).format(ts);
  const days = dayNumber(ts, tz) - dayNumber(now, tz);
  let day: string;
  if (days === 0) day = "today";
  else if (days === 1) day = "tomorrow";
  else if (days === -1) day = "yesterday";
  else if (days > 1 && days < 7) day = new Intl.DateTimeFormat(locale, { timeZone: tz, weekday: "short" }).format(ts);
  else {
    const sameYear = wallClock(ts, tz).year === wallClock(now, tz).year;
    day = new Intl.DateTimeFormat(locale, { timeZone: tz, day: "numeric", month: "short", ...(sameYear ? {} : { year: "numeric" }) }).format(ts);
  }
  if (!relative) return `${day} ${time}`;
  const from = ts > now ? `in ${shortDuration(ts - now)}` : ts > now - 60_000 ? "now" : `${shortDuration(now - ts)} ago`;
  return `${day} ${time} (${from})`;
}
