// A thread's schedules at work: a client's body checked (its fields, then its time against the clock
// and the settings), made, changed and removed for a caller (routes, the schedule plugin's tools), and
// fired by the alarm. The owner's object holds the list across threads and the per-user
// maximum; this object holds the times and fires them, so a fire needs nothing but the object itself.
import { z } from "zod";
import { isTimeZone, MAX_CONTENT_CHARS, type Schedule, type ScheduleBody, type ScheduleStatus } from "../../protocol";
import type { Config } from "../env";
import type { Alarms } from "../lib/alarms";
import { newId } from "../lib/ids";
import type { Logger } from "../lib/logger";
import type { UserApi } from "../user/stub";
import type { Intake } from "./intake";
import type { Outflow } from "./outflow";
import { ok, refuse, type RoomReply } from "./room-reply";
import { cronProblem, shortestCronGap } from "../lib/schedule-time";
import type { RoomStore, ThreadRecord } from "./store";
import type { ScheduleBook } from "./store/schedules";

const fields = {
  name: z.string().trim().min(1).max(100).optional(),
  prompt: z
    .string()
    .max(MAX_CONTENT_CHARS)
    .refine((s) => s.trim().length > 0, "must not be empty")
    .optional(),
  at: z.number().int().min(0).optional(),
  every: z.number().int().min(1).optional(),
  cron: z.string().trim().min(1).max(200).optional(),
  timezone: z.string().min(1).max(64).optional(),
  enabled: z.boolean().optional(),
};

const times = (b: ScheduleBody) => [b.at, b.every, b.cron].filter((t) => t !== undefined).length;

/** A schedule's fields as a client may send them (the checks that need the clock and the settings come after). */
export const schedulePatch = z.strictObject(fields).refine((b) => times(b) <= 1, "give at most one of at, every and cron");
export const scheduleCreate = z
  .strictObject({ ...fields, prompt: fields.prompt.unwrap() })
  .refine((b) => times(b) === 1, "give exactly one of at (epoch ms), every (seconds) and cron (five fields)");

/** Why this time cannot be a schedule's, or null: a past `at`, a short `every`, a bad cron or timezone. */
export function timeProblem(b: ScheduleBody, timezone: string, config: Pick<Config, "scheduleMinIntervalS">, now: number): string | null {
  if (!isTimeZone(timezone)) return `${JSON.stringify(timezone)} is not an IANA timezone (e.g. Europe/Paris)`;
  if (b.at !== undefined && b.at <= now) return "at must be in the future";
  if (b.every !== undefined && b.every < config.scheduleMinIntervalS) return `every must be at least ${config.scheduleMinIntervalS} seconds`;
  if (b.cron !== undefined) return cronProblem(b.cron, timezone) ?? cronTooOften(b.cron, timezone, config.scheduleMinIntervalS, now);
  return null;
}

/** A cron expression that fires twice within the shortest interval is refused as a short `every` is. */
function cronTooOften(cron: string, timezone: string, minIntervalS: number, now: number): string | null {
  const gap = shortestCronGap(cron, timezone, now, minIntervalS * 1000);
  if (gap === null || gap >= minIntervalS * 1000) return null;
  return `cron fires ${gap / 1000} seconds apart at times; a schedule may repeat at most every ${minIntervalS} seconds`;
}

interface SchedulerDeps {
  store: RoomStore;
  intake: Intake;
  outflow: Outflow;
  alarms: Alarms;
  user: (ownerId: string) => UserApi;
  config: Config;
  logger: Logger;
  /** Whether the owner still has access to the deployment, as its settings say (lib/access.ts). */
  hasAccess: (userId: string) => boolean;
}

export class Scheduler {
  private readonly book: ScheduleBook;

  constructor(private readonly deps: SchedulerDeps) {
    this.book = deps.store.schedules;
  }

  list(): Schedule[] {
    return this.book.list();
  }

  /** A new schedule, counted against the owner's maximum by their object first (429 past it). */
  async create(t: ThreadRecord, body: ScheduleBody & { prompt: string }, now = Date.now()): Promise<RoomReply<Schedule>> {
    const problem = timeProblem(body, body.timezone ?? "UTC", this.deps.config, now);
    if (problem) return refuse("invalid_request", problem);
    const id = newId("sch", now);
    const max = this.deps.config.maxSchedulesPerUser;
    let kept: boolean;
    try {
      kept = await this.deps.user(t.ownerId).countSchedule({ id, threadId: t.id }, max);
    } catch (err) {
      this.deps.logger.warn("the owner's object could not count a new schedule", { error: String(err) });
      return refuse("unavailable", "Your schedules could not be counted just now; try again in a moment", 5);
    }
    if (!kept) return refuse("rate_limited", `You already have ${max} schedules; delete one first`);
    const schedule = this.book.add(id, body, now);
    return ok(await this.changed(schedule));
  }

  async update(id: string, body: ScheduleBody, now = Date.now()): Promise<RoomReply<Schedule>> {
    const old = this.book.get(id);
    if (!old) return refuse("not_found", "No such schedule");
    const timed = body.at !== undefined || body.every !== undefined || body.cron !== undefined;
    const problem = timed || body.timezone !== undefined ? timeProblem(body, body.timezone ?? old.timezone, this.deps.config, now) : null;
    if (problem) return refuse("invalid_request", problem);
    // Resumed without a new time, a one-time schedule whose time has gone by would never run: say so.
    if (body.enabled === true && !timed && old.at !== null && old.at <= now) {
      return refuse("invalid_request", "This one-time schedule's time has passed; give it a new time (at) to run it again");
    }
    return ok(await this.changed(this.book.update(id, body, now)!));
  }

  async remove(id: string): Promise<RoomReply<null>> {
    if (!this.book.remove(id)) return refuse("not_found", "No such schedule");
    this.deps.store.report.remove("schedules", id, { id });
    await this.deps.outflow.reported();
    return ok(null);
  }

  /** The run a fire started has ended (the schedule plugin hears it). */
  settle(id: string, status: ScheduleStatus): void {
    const schedule = this.book.settle(id, status);
    if (schedule) this.deps.store.report.put("schedules", id, schedule);
  }

  /**
   * The alarm: every schedule whose time has come posts its prompt, once however many of its times
   * were missed. A fire the limits or the spend cap refuse is recorded as failed; the schedule goes on.
   * An owner who no longer has access has their fires dropped, and each schedule paused.
   */
  async onAlarm(now = Date.now()): Promise<void> {
    const t = this.deps.store.thread.get();
    if (!t) return;
    const gone = !this.deps.hasAccess(t.ownerId);
    for (const s of this.book.due(now)) {
      if (gone) this.deps.logger.warn("a schedule's owner no longer has access: its fire is dropped and it is paused", { scheduleId: s.id });
      const fired = gone ? this.book.paused(s.id) : this.book.fired(s.id, now, this.deps.config.scheduleMinIntervalS * 1000, await this.fire(t, s));
      if (fired) this.deps.store.report.put("schedules", s.id, fired);
    }
    await this.wake();
    await this.deps.outflow.reported();
  }

  /** Asks the alarm for the next fire (after a change, and on start). */
  async wake(): Promise<void> {
    const next = this.book.nextAt();
    if (next !== null) await this.deps.alarms.request(next);
  }

  /**
   * Posts the prompt for the owner; null when it is queued, "failed" when refused. The spend cap, the
   * owner's daily bound on unattended runs and the queue bound apply; the per-minute limit on a
   * person's posts does not (fires are bounded by MAX_SCHEDULES_PER_USER, SCHEDULE_MIN_INTERVAL_S and
   * USER_UNATTENDED_RUNS_PER_DAY, and must not use up what the person types).
   */
  private async fire(t: ThreadRecord, s: Schedule): Promise<ScheduleStatus | null> {
    // The same time fired twice (a retried alarm) is one message, and one fire counted.
    const clientMessageId = `schedule:${s.id}:${s.nextRunAt}`;
    const { intake } = this.deps;
    const refusal = (await intake.overCap(t, clientMessageId)) ?? (await this.overDailyBound(t, clientMessageId));
    const reply =
      refusal ??
      intake.accept(t, { content: s.prompt, role: "user", source: "schedule", metadata: { scheduleId: s.id, scheduleName: s.name }, clientMessageId });
    if (reply.ok) return null;
    this.deps.logger.warn("a schedule's fire was refused", { scheduleId: s.id, code: reply.error.code, reason: reply.error.message });
    return "failed";
  }

  /** The owner's object counts the fire against USER_UNATTENDED_RUNS_PER_DAY; unreachable, the fire is refused. */
  private async overDailyBound(t: ThreadRecord, fireId: string): Promise<RoomReply<never> | null> {
    const perDay = this.deps.config.unattendedRunsPerDay;
    try {
      if (await this.deps.user(t.ownerId).countFire({ id: fireId, threadId: t.id }, perDay)) return null;
    } catch (err) {
      this.deps.logger.warn("the owner's object could not count a schedule's fire", { error: String(err) });
      return refuse("unavailable", "Your schedules' runs today could not be counted", 5);
    }
    return refuse("rate_limited", `Your schedules have started ${perDay} runs today, the most a day; they run again after 00:00 UTC`);
  }

  private async changed(schedule: Schedule): Promise<Schedule> {
    this.deps.store.report.put("schedules", schedule.id, schedule);
    await this.wake();
    await this.deps.outflow.reported();
    return schedule;
  }
}
