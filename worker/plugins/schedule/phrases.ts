// `/schedule <when> <prompt>`: the simple English a person types, or cron. Each form is one regular
// expression anchored at the start, without nested repetition, so a long line costs linear time.
//   every day at 9:00 <prompt>          every weekday at 8:30am, every monday at 18:00, every weekend
//   every 2 hours <prompt>              every 30 minutes, every hour, every minute
//   tomorrow at 9 <prompt>              today at 17:30
//   in 10 minutes <prompt>              in 2 hours, in 3 days
//   at 2026-12-01 09:00 <prompt>
//   cron 0 9 * * 1-5 <prompt>           or cron "0 9 * * 1-5" <prompt>
import type { ScheduleBody } from "../../../protocol";
import { localMoment, wallClock } from "../../lib/schedule-time";

export type Phrase = { ok: true; body: ScheduleBody & { prompt: string } } | { ok: false; reason: string };

const TIME = String.raw`(\d{1,2})(?::(\d{2}))?\s*(am|pm)?`;
const DAYS: Record<string, string> = {
  day: "*",
  weekday: "1-5",
  weekend: "0,6",
  sunday: "0",
  monday: "1",
  tuesday: "2",
  wednesday: "3",
  thursday: "4",
  friday: "5",
  saturday: "6",
};
const UNITS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86_400 };

const FORMS = {
  cronQuoted: /^cron\s+"([^"]+)"\s+([\s\S]+)$/i,
  cron: /^cron\s+(\S+\s+\S+\s+\S+\s+\S+\s+\S+)\s+([\s\S]+)$/i,
  everyN: /^every\s+(\d{1,6})\s*(second|minute|hour|day)s?\s+([\s\S]+)$/i,
  everyUnit: /^every\s+(minute|hour)\s+([\s\S]+)$/i,
  everyDay: new RegExp(String.raw`^every\s+(day|weekday|weekend|sunday|monday|tuesday|wednesday|thursday|friday|saturday)(?:\s+at\s+${TIME})?\s+([\s\S]+)$`, "i"),
  dayAt: new RegExp(String.raw`^(today|tomorrow)\s+at\s+${TIME}\s+([\s\S]+)$`, "i"),
  inN: /^in\s+(\d{1,6})\s*(minute|hour|day)s?\s+([\s\S]+)$/i,
  on: /^at\s+(\d{4})-(\d{2})-(\d{2})[ T](\d{1,2}):(\d{2})\s+([\s\S]+)$/i,
};

/** 24-hour hour and minute from `9`, `9:30`, `9pm`, `21:15`; null when out of range. */
function clock(h: string, m: string | undefined, meridiem: string | undefined): { hour: number; minute: number } | null {
  let hour = Number(h);
  const minute = Number(m ?? 0);
  if (meridiem) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (meridiem.toLowerCase() === "pm" ? 12 : 0);
  }
  return hour <= 23 && minute <= 59 ? { hour, minute } : null;
}

const BAD_TIME: Phrase = { ok: false, reason: "that time of day is not one (use 9:00, 9am or 21:30)" };

export function parsePhrase(args: string, timezone: string, now: number): Phrase {
  const text = args.trim();
  let m: RegExpMatchArray | null;
  if ((m = text.match(FORMS.cronQuoted) ?? text.match(FORMS.cron))) return { ok: true, body: { cron: m[1].trim(), timezone, prompt: m[2].trim() } };
  if ((m = text.match(FORMS.everyN))) return { ok: true, body: { every: Number(m[1]) * UNITS[m[2].toLowerCase()], prompt: m[3].trim() } };
  if ((m = text.match(FORMS.everyUnit))) return { ok: true, body: { every: UNITS[m[1].toLowerCase()], prompt: m[2].trim() } };
  if ((m = text.match(FORMS.everyDay))) {
    const at = m[2] ? clock(m[2], m[3], m[4]) : { hour: 9, minute: 0 };
    if (!at) return BAD_TIME;
    return { ok: true, body: { cron: `${at.minute} ${at.hour} * * ${DAYS[m[1].toLowerCase()]}`, timezone, prompt: m[5].trim() } };
  }
  if ((m = text.match(FORMS.dayAt))) {
    const at = clock(m[2], m[3], m[4]);
    if (!at) return BAD_TIME;
    const day = m[1].toLowerCase() === "tomorrow" ? 1 : 0;
    return { ok: true, body: { at: wallClock(timezone, now, day, at.hour, at.minute), timezone, prompt: m[5].trim() } };
  }
  if ((m = text.match(FORMS.inN))) return { ok: true, body: { at: now + Number(m[1]) * UNITS[m[2].toLowerCase()] * 1000, timezone, prompt: m[3].trim() } };
  if ((m = text.match(FORMS.on))) {
    const at = clock(m[4], m[5], undefined);
    if (!at) return BAD_TIME;
    if (Number(m[2]) < 1 || Number(m[2]) > 12 || Number(m[3]) < 1 || Number(m[3]) > 31) return { ok: false, reason: "that date is not one (use YYYY-MM-DD)" };
    return { ok: true, body: { at: localMoment(timezone, `${m[1]}-${m[2]}-${m[3]}`, at.hour, at.minute), timezone, prompt: m[6].trim() } };
  }
  return {
    ok: false,
    reason:
      'say when, then what: "every day at 9:00 <prompt>", "every weekday at 8:30am …", "every 2 hours …", "tomorrow at 9 …", "in 10 minutes …", "at 2026-12-01 09:00 …" or "cron 0 9 * * 1 …"',
  };
}
