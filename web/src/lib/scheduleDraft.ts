// A schedule as its form edits it, and as the lists say it: the draft the form holds (strings, as
// inputs give them), the body POST or PATCH takes from it, and a schedule's time and next run in words.

import type { Schedule, ScheduleBody } from "@protocol";
import { epochToZonedInput, formatMoment, zonedTimeToEpoch } from "./timeZone";

export type ScheduleKind = "once" | "every" | "cron";
export type IntervalUnit = "seconds" | "minutes" | "hours" | "days";

export const UNIT_SECONDS: Record<IntervalUnit, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 };

export interface ScheduleDraft {
  name: string;
  prompt: string;
  kind: ScheduleKind;
  /** A datetime-local value, read in `timezone`. */
  at: string;
  count: string;
  unit: IntervalUnit;
  cron: string;
  timezone: string;
}

/** Seconds in the largest unit that divides them: 7200 → 2 hours, 90 → 90 seconds. */
export function splitEvery(seconds: number): { count: number; unit: IntervalUnit } {
  for (const unit of ["days", "hours", "minutes"] as const) {
    if (seconds >= UNIT_SECONDS[unit] && seconds % UNIT_SECONDS[unit] === 0) return { count: seconds / UNIT_SECONDS[unit], unit };
  }
  return { count: seconds, unit: "seconds" };
}

const kindOf = (s: Pick<Schedule, "at" | "every">): ScheduleKind => (s.at !== null ? "once" : s.every !== null ? "every" : "cron");

/** The form's start: a schedule's fields, or a new one's (every hour, or an hour from now, in `timezone`). */
export function draftOf(s: Schedule | null, timezone: string, now: number): ScheduleDraft {
  if (!s) {
    return { name: "", prompt: "", kind: "every", at: epochToZonedInput(now + 3_600_000, timezone), count: "1", unit: "hours", cron: "0 9 * * *", timezone };
  }
  const every = splitEvery(s.every ?? 3600);
  return {
    name: s.name,
    prompt: s.prompt,
    kind: kindOf(s),
    at: epochToZonedInput(s.at ?? now + 3_600_000, s.timezone),
    count: String(every.count),
    unit: every.unit,
    cron: s.cron ?? "0 9 * * *",
    timezone: s.timezone,
  };
}

/** The draft's time as the API takes it, or why it is not one (the server checks the rest). */
export function timeOf(d: ScheduleDraft): { time: Pick<ScheduleBody, "at" | "every" | "cron"> } | { problem: string } {
  if (d.kind === "once") {
    const at = zonedTimeToEpoch(d.at, d.timezone);
    return Number.isFinite(at) ? { time: { at } } : { problem: "Choose a date and time." };
  }
  if (d.kind === "every") {
    const count = Number(d.count);
    if (!Number.isInteger(count) || count < 1) return { problem: "The interval is a whole number, 1 or more." };
    return { time: { every: count * UNIT_SECONDS[d.unit] } };
  }
  const cron = d.cron.trim().replace(/\s+/g, " ");
  return cron ? { time: { cron } } : { problem: "Write a cron expression (minute hour day month weekday)." };
}

/** POST's body for a new schedule, or why the draft is not one yet. */
export function createBody(d: ScheduleDraft): { body: ScheduleBody & { prompt: string } } | { problem: string } {
  if (!d.prompt.trim()) return { problem: "Write the prompt to send." };
  const t = timeOf(d);
  if ("problem" in t) return t;
  const name = d.name.trim();
  return { body: { prompt: d.prompt, ...t.time, timezone: d.timezone, ...(name ? { name } : {}) } };
}

/**
 * PATCH's body: only what the draft changed. The time and timezone go only when changed, since a
 * new time counts the next run again from now (an interval would lose its phase).
 */
export function editBody(old: Schedule, d: ScheduleDraft): { body: ScheduleBody } | { problem: string } {
  if (!d.prompt.trim()) return { problem: "Write the prompt to send." };
  const t = timeOf(d);
  if ("problem" in t) return t;
  const body: ScheduleBody = {};
  const name = d.name.trim();
  if (name && name !== old.name) body.name = name;
  if (d.prompt !== old.prompt) body.prompt = d.prompt;
  const { at, every, cron } = t.time;
  const timeChanged = (at ?? null) !== old.at || (every ?? null) !== old.every || (cron ?? null) !== old.cron;
  if (timeChanged) Object.assign(body, t.time);
  if (d.timezone !== old.timezone) body.timezone = d.timezone;
  return { body };
}

function plural(n: number, unit: string): string {
  const one = unit.slice(0, -1);
  return n === 1 ? one : `${n} ${unit}`;
}

/** When a schedule runs, in words: "Every 2 seconds", "Every hour", "Once, tomorrow 09:00", "Cron 0 9 * * 1 (Europe/Paris)". */
export function describeWhen(s: Pick<Schedule, "at" | "every" | "cron" | "timezone">, viewerTz: string, now: number, locale?: string): string {
  if (s.every !== null) {
    const { count, unit } = splitEvery(s.every);
    return `Every ${plural(count, unit)}`;
  }
  if (s.at !== null) return `Once, ${formatMoment(s.at, now, viewerTz, { locale, relative: false })}`;
  return `Cron ${s.cron} (${s.timezone})`;
}

/** A one-time schedule disarmed for good (it ran, or its time passed while it was paused): nothing to pause or resume. */
export const isSpent = (s: Pick<Schedule, "at" | "enabled" | "nextRunAt">): boolean => s.at !== null && s.enabled && s.nextRunAt === null;

/** A schedule's next run in the viewer's timezone, or why it has none. */
export function describeNext(s: Pick<Schedule, "enabled" | "nextRunAt" | "at" | "lastRunAt">, viewerTz: string, now: number, locale?: string): string {
  if (!s.enabled) return "Paused";
  if (s.nextRunAt === null) return !isSpent(s) ? "Not scheduled" : s.lastRunAt !== null ? "Done (it ran once)" : "Its time has passed";
  return formatMoment(s.nextRunAt, now, viewerTz, { locale });
}
