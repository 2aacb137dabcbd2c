// GET /api/admin/usage reads D1's roll-up (usage_days): a page at a time, every user-day exactly once,
// and a next cursor whenever more remain, at any size.
import { describe, expect, it } from "vitest";
import { api, env, json } from "../helpers";
import { DAY_MS, utcDayStart } from "../../worker/lib/time";
import { expectError, expectInvalid } from "./util";

const USERS = 2_000;
const DAYS = 30;

/** 2,000 users × 30 days in one statement: user i on day d ran i % 7 + d + 1 times, each 10 input tokens and $0.01. */
async function seed(prefix: string, today: number) {
  await env.DB.prepare(
    `WITH RECURSIVE u(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM u WHERE i < ?1 - 1),
                   d(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM d WHERE j < ?2 - 1)
     INSERT INTO usage_days (day, owner_id, runs, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, updated_at)
     SELECT strftime('%Y-%m-%d', (?3 - j * 86400000) / 1000, 'unixepoch'), ?4 || printf('%04d', i),
            i % 7 + j + 1, (i % 7 + j + 1) * 10, 1, 0, 0, (i % 7 + j + 1) * 0.01, ?3
     FROM u, d`,
  )
    .bind(USERS, DAYS, today, prefix)
    .run();
}

/** Every page of the query, following nextCursor. */
async function allPages(query: string) {
  const pages: any[][] = [];
  let cursor: string | undefined;
  do {
    const page = await json(api(`/api/admin/usage?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`));
    pages.push(page.usage);
    cursor = page.nextCursor;
  } while (cursor);
  return pages;
}

describe("GET /api/admin/usage", () => {
  it("over 2,000 users × 30 days is exact: every user-day once, in pages, the totals whole", async () => {
    const prefix = `admin-${crypto.randomUUID().slice(0, 6)}-`;
    const today = utcDayStart(Date.now());
    await seed(prefix, today);
    for (const limit of [5_000, 1_000]) {
      const pages = await allPages(`limit=${limit}`);
      expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
      const mine = pages.flat().filter((r) => r.userId.startsWith(prefix));
      expect(mine).toHaveLength(USERS * DAYS);
      expect(new Set(mine.map((r) => `${r.day} ${r.userId}`)).size).toBe(USERS * DAYS);
      // Newest day first, then by user.
      const order = pages.flat().map((r) => [r.day, r.userId]);
      expect(order).toEqual([...order].sort((a, b) => (a[0] !== b[0] ? (a[0] < b[0] ? 1 : -1) : a[1] < b[1] ? -1 : 1)));
      const runs = mine.reduce((n, r) => n + r.runs, 0);
      let expected = 0;
      for (let i = 0; i < USERS; i++) for (let j = 0; j < DAYS; j++) expected += (i % 7) + j + 1;
      expect(runs).toBe(expected);
      expect(mine.reduce((n, r) => n + r.inputTokens, 0)).toBe(expected * 10);
      const one = mine.find((r) => r.userId === `${prefix}0003` && r.day === new Date(today - 2 * DAY_MS).toISOString().slice(0, 10));
      expect(one).toEqual({ userId: `${prefix}0003`, day: one.day, runs: 6, inputTokens: 60, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.06 });
    }
  });

  it("keeps to its window (at most 92 days), and refuses a cursor it did not give or a page past 5,000", async () => {
    const until = utcDayStart(Date.now()) + DAY_MS;
    const page = await json(api(`/api/admin/usage?since=${until - 2 * DAY_MS}&until=${until}&limit=5000`));
    expect(new Set(page.usage.map((r: any) => r.day)).size).toBeLessThanOrEqual(2);
    await expectInvalid(await api(`/api/admin/usage?since=0&until=${until}`), "");
    await expectError(await api("/api/admin/usage?cursor=nonsense"), 400, "invalid_request");
    await expectInvalid(await api("/api/admin/usage?limit=5001"), "limit");
  });
});
