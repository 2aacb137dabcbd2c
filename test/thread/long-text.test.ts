// Text past what one SQLite value holds is kept in parts: never a surrogate pair cut in two (a lone
// half would not survive UTF-8), and read back whole.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ThreadRoom } from "../../worker/thread/room";
import { PART_UNITS, split } from "../../worker/thread/store/long-text";
import { env } from "../helpers";

describe("split", () => {
  it("cuts at the size given but never inside a surrogate pair, and joins back to the text", () => {
    const text = `a${"😀".repeat(10)}b`;
    const parts = split(text, 4);
    expect(parts.join("")).toBe(text);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(4);
      expect(new TextDecoder().decode(new TextEncoder().encode(part))).toBe(part);
    }
  });

  it("leaves text within the size in one part", () => {
    expect(split("short", 10)).toEqual(["short"]);
  });
});

describe("a cached step-0 input past a row's size", () => {
  it("is stored in parts, read back whole, and its parts go when a shorter value replaces it", async () => {
    const room = env.THREAD_ROOM.get(env.THREAD_ROOM.idFromName(`long-${crypto.randomUUID()}`));
    const seen = await runInDurableObject(room, (r: ThreadRoom, state) => {
      const sql = state.storage.sql;
      const cache = r.parts.store.cache;
      const big = { files: ["é".repeat(PART_UNITS), "x".repeat(2 * PART_UNITS)] };
      cache.put("inputs", big, 1);
      const row = sql.exec<{ n: number }>("SELECT length(value) AS n FROM cache WHERE key = 'inputs'").one().n;
      const parts = sql.exec<{ n: number; longest: number }>("SELECT count(*) AS n, max(length(part)) AS longest FROM long_text").one();
      const back = cache.get<typeof big>("inputs")!.value;
      cache.put("inputs", { files: [] }, 2);
      const after = sql.exec<{ n: number }>("SELECT count(*) AS n FROM long_text").one().n;
      return { row, parts, same: JSON.stringify(back) === JSON.stringify(big), again: cache.get("inputs"), after };
    });
    expect(seen.row).toBeLessThan(100);
    expect(seen.parts.n).toBeGreaterThanOrEqual(3);
    expect(seen.parts.longest).toBeLessThanOrEqual(PART_UNITS);
    expect(seen.same).toBe(true);
    expect(seen.again).toEqual({ value: { files: [] }, fetchedAt: 2 });
    expect(seen.after).toBe(0);
  });
});
