import type { Schedule } from "@protocol";
import { describe, expect, it } from "vitest";
import { createBody, describeNext, describeWhen, draftOf, editBody, splitEvery, type ScheduleDraft } from "./scheduleDraft";

const now = Date.UTC(2026, 5, 1, 12, 0, 0);

function schedule(over: Partial<Schedule> = {}): Schedule {
  return {
    id: "sch_1",
    threadId: "thr_1",
    name: "Standup",
    prompt: "Summarise my tasks",
    at: null,
    every: 7200,
    cron: null,
    timezone: "Europe/Paris",
    enabled: true,
    nextRunAt: now + 3_600_000,
    lastRunAt: null,
    lastStatus: null,
    createdAt: now - 3_600_000,
    ...over,
  };
}

const draft = (over: Partial<ScheduleDraft> = {}): ScheduleDraft => ({ ...draftOf(null, "Europe/Paris", now), prompt: "Remind me", ...over });

describe("schedule drafts", () => {
  it("splits an interval into its largest whole unit", () => {
    expect(splitEvery(2)).toEqual({ count: 2, unit: "seconds" });
    expect(splitEvery(90)).toEqual({ count: 90, unit: "seconds" });
    expect(splitEvery(300)).toEqual({ count: 5, unit: "minutes" });
    expect(splitEvery(7200)).toEqual({ count: 2, unit: "hours" });
    expect(splitEvery(86_400 * 7)).toEqual({ count: 7, unit: "days" });
  });

  it("makes POST's body: the prompt, one time, the timezone, a name only when given", () => {
    expect(createBody(draft({ kind: "every", count: "2", unit: "seconds" }))).toEqual({ body: { prompt: "Remind me", every: 2, timezone: "Europe/Paris" } });
    expect(createBody(draft({ kind: "every", count: "3", unit: "hours", name: " Check " }))).toEqual({
      body: { prompt: "Remind me", every: 10_800, timezone: "Europe/Paris", name: "Check" },
    });
    // A date and time on the form's timezone's clock.
    expect(createBody(draft({ kind: "once", at: "2026-06-02T09:00" }))).toEqual({ body: { prompt: "Remind me", at: Date.UTC(2026, 5, 2, 7, 0), timezone: "Europe/Paris" } });
    expect(createBody(draft({ kind: "cron", cron: "  0 9  * * 1-5 " }))).toEqual({ body: { prompt: "Remind me", cron: "0 9 * * 1-5", timezone: "Europe/Paris" } });
  });

  it("says what a draft lacks before asking the server", () => {
    expect(createBody(draft({ prompt: "  " }))).toEqual({ problem: "Write the prompt to send." });
    expect(createBody(draft({ kind: "every", count: "1.5" }))).toHaveProperty("problem");
    expect(createBody(draft({ kind: "every", count: "0" }))).toHaveProperty("problem");
    expect(createBody(draft({ kind: "once", at: "" }))).toHaveProperty("problem");
    expect(createBody(draft({ kind: "cron", cron: " " }))).toHaveProperty("problem");
  });

  it("edits with only what changed: an untouched time keeps its phase", () => {
    const s = schedule();
    expect(editBody(s, draftOf(s, "UTC", now))).toEqual({ body: {} });
    expect(editBody(s, { ...draftOf(s, "UTC", now), prompt: "New prompt" })).toEqual({ body: { prompt: "New prompt" } });
    expect(editBody(s, { ...draftOf(s, "UTC", now), count: "3" })).toEqual({ body: { every: 10_800 } });
    expect(editBody(s, { ...draftOf(s, "UTC", now), kind: "cron", cron: "0 9 * * *" })).toEqual({ body: { cron: "0 9 * * *" } });
    expect(editBody(s, { ...draftOf(s, "UTC", now), timezone: "UTC", name: "Daily" })).toEqual({ body: { name: "Daily", timezone: "UTC" } });
  });

  it("opens a one-time schedule at its time, on its timezone's clock", () => {
    const s = schedule({ every: null, at: Date.UTC(2026, 5, 2, 7, 0) });
    const d = draftOf(s, "UTC", now);
    expect(d.kind).toBe("once");
    expect(d.at).toBe("2026-06-02T09:00");
    expect(editBody(s, d)).toEqual({ body: {} });
  });
});

describe("schedules in words", () => {
  it("says when a schedule runs", () => {
    expect(describeWhen(schedule({ every: 2 }), "UTC", now)).toBe("Every 2 seconds");
    expect(describeWhen(schedule({ every: 60 }), "UTC", now)).toBe("Every minute");
    expect(describeWhen(schedule({ every: 3600 }), "UTC", now)).toBe("Every hour");
    expect(describeWhen(schedule({ every: 86_400 * 2 }), "UTC", now)).toBe("Every 2 days");
    expect(describeWhen(schedule({ every: null, cron: "0 9 * * 1" }), "UTC", now)).toBe("Cron 0 9 * * 1 (Europe/Paris)");
    expect(describeWhen(schedule({ every: null, at: Date.UTC(2026, 5, 2, 7, 0) }), "Europe/Paris", now, "en-GB")).toBe("Once, tomorrow 09:00");
  });

  it("says the next run in the viewer's timezone, or why there is none", () => {
    expect(describeNext(schedule({ nextRunAt: now + 2_000 }), "Europe/Paris", now, "en-GB")).toBe("today 14:00:02 (in 2 s)");
    expect(describeNext(schedule({ enabled: false, nextRunAt: null }), "UTC", now)).toBe("Paused");
    expect(describeNext(schedule({ every: null, at: now - 1000, nextRunAt: null, lastRunAt: now - 1000 }), "UTC", now)).toBe("Done (it ran once)");
    // Resumed after its time went by while paused: it never ran, and will not.
    expect(describeNext(schedule({ every: null, at: now - 1000, nextRunAt: null }), "UTC", now)).toBe("Its time has passed");
  });
});
