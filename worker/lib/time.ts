export const DAY_MS = 86_400_000;

/** The start of the UTC day `now` falls in: daily caps (spend, tasks) reset then. */
export const utcDayStart = (now: number) => now - (now % DAY_MS);
