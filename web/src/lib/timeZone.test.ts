import { describe, expect, it } from "vitest";
import { epochToZonedInput, formatMoment, isTimeZone, shortDuration, zonedTimeToEpoch } from "./timeZone";

describe("wall-clock times in a timezone", () => {
  it("reads a datetime-local value in the given timezone", () => {
    expect(zonedTimeToEpoch("2026-06-01T09:00", "Europe/Paris")).toBe(Date.UTC(2026, 5, 1, 7, 0));
    expect(zonedTimeToEpoch("2026-01-15T09:00", "Europe/Paris")).toBe(Date.UTC(2026, 0, 15, 8, 0));
    expect(zonedTimeToEpoch("2026-06-01T09:00", "UTC")).toBe(Date.UTC(2026, 5, 1, 9, 0));
    expect(zonedTimeToEpoch("2026-06-01T09:00", "Asia/Kolkata")).toBe(Date.UTC(2026, 5, 1, 3, 30));
  });

  it("takes a time a daylight-saving change skips as the hour after, and a repeated one as the first", () => {
    // New York springs forward at 02:00 on 8 March 2026: 02:30 does not exist; 03:30 EDT is 07:30Z.
    expect(zonedTimeToEpoch("2026-03-08T02:30", "America/New_York")).toBe(Date.UTC(2026, 2, 8, 7, 30));
    // It falls back at 02:00 on 1 November 2026: 01:30 happens twice, first in EDT (05:30Z).
    expect(zonedTimeToEpoch("2026-11-01T01:30", "America/New_York")).toBe(Date.UTC(2026, 10, 1, 5, 30));
  });

  it("answers NaN for what is not a time or not a timezone", () => {
    expect(zonedTimeToEpoch("", "UTC")).toBeNaN();
    expect(zonedTimeToEpoch("2026-06-01T09:00", "Mars/Olympus")).toBeNaN();
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(isTimeZone("Europe/Paris")).toBe(true);
  });

  it("writes a moment back as the input's value in that timezone", () => {
    const ts = Date.UTC(2026, 5, 1, 7, 5);
    expect(epochToZonedInput(ts, "Europe/Paris")).toBe("2026-06-01T09:05");
    expect(epochToZonedInput(ts, "America/Los_Angeles")).toBe("2026-06-01T00:05");
    expect(zonedTimeToEpoch(epochToZonedInput(ts, "Australia/Sydney"), "Australia/Sydney")).toBe(ts);
  });
});

describe("a moment said from now", () => {
  const now = Date.UTC(2026, 5, 1, 12, 0, 0); // Monday 1 June 2026, 12:00 UTC

  it("says today, tomorrow, a weekday or a date, with seconds when it is within the hour", () => {
    expect(formatMoment(now + 5_000, now, "UTC", { locale: "en-GB" })).toBe("today 12:00:05 (in 5 s)");
    expect(formatMoment(Date.UTC(2026, 5, 2, 9, 0), now, "UTC", { locale: "en-GB" })).toBe("tomorrow 09:00 (in 21 h)");
    expect(formatMoment(Date.UTC(2026, 5, 4, 9, 0), now, "UTC", { locale: "en-GB" })).toBe("Thu 09:00 (in 2 days)");
    expect(formatMoment(Date.UTC(2026, 6, 20, 9, 0), now, "UTC", { locale: "en-GB" })).toBe("20 Jul 09:00 (in 48 days)");
    expect(formatMoment(Date.UTC(2027, 0, 3, 9, 0), now, "UTC", { locale: "en-GB" })).toBe("3 Jan 2027 09:00 (in 215 days)");
  });

  it("counts days and hours on the viewer's clock, not UTC's", () => {
    const late = Date.UTC(2026, 5, 1, 23, 30); // 01:30 on 2 June in Paris
    const soon = late + 3_600_000; // 02:30 in Paris, 00:30 on 2 June in UTC
    expect(formatMoment(soon, late, "Europe/Paris", { locale: "en-GB" })).toBe("today 02:30 (in 1 h)");
    expect(formatMoment(soon, late, "UTC", { locale: "en-GB" })).toBe("tomorrow 00:30 (in 1 h)");
  });

  it("says a moment just gone as now, and older ones as ago", () => {
    expect(formatMoment(now - 2_000, now, "UTC", { locale: "en-GB" })).toBe("today 11:59:58 (now)");
    expect(formatMoment(now - 5 * 60_000, now, "UTC", { locale: "en-GB" })).toBe("today 11:55:00 (5 min ago)");
  });

  it("leaves out the relative part when asked", () => {
    expect(formatMoment(Date.UTC(2026, 5, 2, 9, 0), now, "UTC", { locale: "en-GB", relative: false })).toBe("tomorrow 09:00");
  });

  it("rounds durations down", () => {
    expect(shortDuration(59_999)).toBe("59 s");
    expect(shortDuration(60_000)).toBe("1 min");
    expect(shortDuration(86_400_000)).toBe("1 day");
    expect(shortDuration(-5)).toBe("0 s");
  });
});
