// The per-thread calibration of the token estimate (worker/thread/context-window.ts): it learns the
// ratio of the API's own input-token counts to the app's estimate, the history's room follows that
// ratio, a "prompt is too long" answer lowers what a model is allowed, and it all survives in the
// object's storage. End to end: a run the API counted far above the estimate makes the next request
// carry less history.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelInfo } from "../../protocol";
import type { StoredTurn } from "../../worker/invoker/conversation";
import { Calibration, fitHistory } from "../../worker/thread/run/context-window";
import type { ThreadRoom } from "../../worker/thread/room";
import type { CacheStore } from "../../worker/thread/store/cache";
import { api, createThread, marker, script, settle, Socket, threadObject, upstreamRequests } from "../helpers";

const small: ModelInfo = { id: "claude-fake-small", displayName: "Fake small", contextWindow: 25_000, maxOutputTokens: 4_096, thinking: ["enabled"], compaction: false, codeExecution: null };
const big: ModelInfo = { id: "claude-sonnet-4-6", displayName: "Claude Sonnet 4.6", contextWindow: 200_000, maxOutputTokens: 64_000, thinking: ["adaptive", "enabled"], compaction: true, codeExecution: "code_execution_20260521" };


/** Runs `fn` with a real CacheStore: the store of an object of its own (built at this first need). */
function withCache<T>(fn: (cache: CacheStore) => T, name = `calibration-${crypto.randomUUID()}`): Promise<T> {
  return runInDurableObject(threadObject(name), (room: ThreadRoom) => fn(room.parts.store.cache));
}

/** `n` exchanges of a question and an answer, each turn `chars` characters of text. */
function exchanges(n: number, chars: number): StoredTurn[] {
  return Array.from({ length: n }, (_, i) => [
    { exchange: `ex${i}`, message: { role: "user" as const, content: [{ type: "text" as const, text: `${i} ${"q".repeat(chars)}` }] }, tokens: Math.ceil(chars / 4) + 10 },
    { exchange: `ex${i}`, message: { role: "assistant" as const, content: [{ type: "text" as const, text: `${i} ${"a".repeat(chars)}` }] }, tokens: Math.ceil(chars / 4) + 10 },
  ]).flat();
}

describe("Calibration (unit)", () => {
  it("starts at a ratio of 1 and gives the model's window less the answer's room, or the override", async () => {
    await withCache((cache) => {
      const c = new Calibration(cache);
      expect(c.ratio).toBe(1);
      expect(c.budget(small, 4_096, null)).toBe(25_000 - 4_096);
      expect(c.budget(big, 8_192, null)).toBe(200_000 - 8_192);
      expect(c.budget(small, 4_096, 10_000)).toBe(10_000);
    });
  });

  it("learns the API's count over the estimate, weighted towards the newest, and converges on it", async () => {
    await withCache((cache) => {
      const c = new Calibration(cache);
      c.observe(2_000, 1_000); // the API counted twice the estimate
      expect(c.ratio).toBeCloseTo(1 * 0.3 + 2 * 0.7, 10);
      c.observe(2_000, 1_000);
      expect(c.ratio).toBeCloseTo(1.7 * 0.3 + 2 * 0.7, 10);
      for (let i = 0; i < 20; i++) c.observe(2_000, 1_000);
      expect(c.ratio).toBeCloseTo(2, 6);
      // Then the thread's text turns cheaper than estimated: the ratio follows it down again.
      for (let i = 0; i < 20; i++) c.observe(500, 1_000);
      expect(c.ratio).toBeCloseTo(0.5, 6);
    });
  });

  it("ignores counts of nothing (a failed or empty request), either side", async () => {
    await withCache((cache) => {
      const c = new Calibration(cache);
      c.observe(3_000, 1_000);
      const learned = c.ratio;
      c.observe(0, 1_000);
      c.observe(1_000, 0);
      c.observe(-5, 1_000);
      expect(c.ratio).toBe(learned);
    });
  });

  it("shrinks the history's room when the API counts more than estimated, and grows it when it counts less", async () => {
    await withCache((cache) => {
      const c = new Calibration(cache);
      const turns = exchanges(10, 4_000); // ~2,020 estimated tokens an exchange, ~20,200 in all
      const fixed = 1_000;
      const room = () => c.budget(small, 4_096, null) / c.ratio - fixed;

      const before = fitHistory(turns, room());
      expect(before.dropped).toBe(1); // 20,904 - 1,000 leaves room for 9 of the 10

      for (let i = 0; i < 20; i++) c.observe(3_000, 1_000); // the API counts three times the estimate
      const higher = fitHistory(turns, room());
      expect(higher.dropped).toBeGreaterThanOrEqual(7);
      expect(higher.estimate * c.ratio + fixed * c.ratio).toBeLessThanOrEqual(c.budget(small, 4_096, null) + 100);
      // What is left out is said in the first kept turn.
      expect((higher.history[0].content as any[])[0].text).toMatch(/^\[Earlier messages of this conversation were left out/);

      for (let i = 0; i < 20; i++) c.observe(500, 1_000); // now half of it
      const lower = fitHistory(turns, room());
      expect(lower.dropped).toBe(0);
      expect(lower.history).toHaveLength(20);
    });
  });

  it("takes a 'prompt is too long' answer's maximum as the model's limit, with a margin, for that model only", async () => {
    await withCache((cache) => {
      const c = new Calibration(cache);
      c.tooLong(big.id, { tokens: 120_000, max: 100_000 }, 60_000);
      expect(c.budget(big, 8_192, null)).toBe(Math.floor(100_000 * 0.95));
      // The limit stated caps an override of the window too, and stays below a larger window only.
      expect(c.budget(big, 8_192, 150_000)).toBe(95_000);
      expect(c.budget(big, 8_192, 50_000)).toBe(50_000);
      // Another model is not affected.
      expect(c.budget(small, 4_096, null)).toBe(25_000 - 4_096);
      // The API counted 120,000 where the app estimated 60,000: the ratio is at least 2 from now on.
      expect(c.ratio).toBe(2);
    });
  });

  it("never lowers the ratio on a refusal, and ignores an estimate of nothing", async () => {
    await withCache((cache) => {
      const c = new Calibration(cache);
      for (let i = 0; i < 20; i++) c.observe(3_000, 1_000);
      const learned = c.ratio;
      c.tooLong(small.id, { tokens: 21_000, max: 20_000 }, 20_000); // 1.05 < learned
      expect(c.ratio).toBe(learned);
      c.tooLong(small.id, { tokens: 30_000, max: 18_000 }, 0);
      expect(c.ratio).toBe(learned);
      // The newest statement of the maximum wins.
      expect(c.budget(small, 4_096, null)).toBe(Math.floor(18_000 * 0.95));
    });
  });

  it("is kept in the object's storage: a new instance (a restarted object) knows what the last one learned", async () => {
    const name = `calibration-${crypto.randomUUID()}`;
    await withCache((cache) => {
      const c = new Calibration(cache);
      c.observe(2_500, 1_000);
      c.tooLong(small.id, { tokens: 22_000, max: 20_000 }, 10_000);
    }, name);
    const again = await withCache((cache) => {
      const c = new Calibration(cache);
      return { ratio: c.ratio, budget: c.budget(small, 4_096, null), stored: cache.get<any>("calibration")?.value };
    }, name);
    expect(again.ratio).toBeCloseTo(2.2, 10); // max(0.3 + 1.75, 22,000 / 10,000)
    expect(again.budget).toBe(19_000);
    expect(again.stored).toEqual({ ratio: again.ratio, maxInput: { [small.id]: 20_000 } });
    // Another thread's object learned nothing.
    expect(await withCache((cache) => new Calibration(cache).ratio)).toBe(1);
  });
});

describe("calibration, end to end", () => {
  afterEach(() => settle(30_000));

  async function talk(threadId: string, ws: Socket, content: string, runs: number) {
    expect((await api(`/api/threads/${threadId}/messages`, { body: { content } })).status).toBe(202);
    const end = (await ws.waitForRunEnd(runs, 20_000)).filter((f) => f.event === "pipeline:complete" || f.event === "pipeline:error").pop()!;
    expect(end.event, JSON.stringify(end.data)).toBe("pipeline:complete");
  }

  /**
   * Seven exchanges on the small model (25,000 tokens, 20,904 for the prompt), each question 6,000
   * characters; the seventh run's usage is `inflate` (or the fake's own count). Answers the seventh
   * and eighth requests' bodies and the thread's stored ratio after the eighth run.
   */
  async function conversation(inflate: number | null) {
    const thread = await createThread({ model: "claude-fake-small" });
    const ws = await Socket.open(thread.id);
    const markers = Array.from({ length: 8 }, (_, i) => marker(`cal${i + 1}`));
    for (const [i, m] of markers.entries()) {
      await script(m, [{ kind: "text", text: "ok", ...(i === 6 && inflate ? { usage: { input_tokens: inflate } } : {}) }]);
    }
    for (const [i, m] of markers.entries()) await talk(thread.id, ws, `${i + 1} ${"h".repeat(6_000)} ${m}`, i + 1);
    ws.close();
    const [seventh] = await upstreamRequests(markers[6]);
    const eighth = (await upstreamRequests(markers[7])).pop()!;
    const ratio = await runInDurableObject(threadObject(thread.id), (r: ThreadRoom) => new Calibration(r.parts.store.cache).ratio);
    return { seventh: seventh.body, eighth: eighth.body, ratio };
  }

  it("sends less history after a run the API counted at far more tokens than estimated", async () => {
    const normal = await conversation(null);
    // The fake counts about 4 characters a token, as the estimate does: the ratio stays near 1 and
    // the eighth request carries the whole conversation (7 exchanges and the new message).
    expect(normal.ratio).toBeGreaterThan(0.8);
    expect(normal.ratio).toBeLessThan(1.25);
    expect(normal.seventh.messages).toHaveLength(13);
    expect(normal.eighth.messages).toHaveLength(15);

    // The same conversation, but the seventh run's first request was counted at 40,000 tokens (about
    // three times what was sent): the eighth request leaves its oldest exchanges out, and says so.
    const inflated = await conversation(40_000);
    expect(inflated.seventh.messages).toHaveLength(13); // the same as before, up to that point
    // (The eighth run, counted as estimated, has since pulled the ratio back towards 1, part way.)
    expect(inflated.ratio).toBeGreaterThan(normal.ratio + 0.3);
    expect(inflated.eighth.messages.length).toBeLessThan(15);
    expect(inflated.eighth.messages.length % 2).toBe(1); // whole exchanges, then the new message
    expect(inflated.eighth.messages[0].content[0].text).toBe("[Earlier messages of this conversation were left out to fit the model's context window.]");
    expect(JSON.stringify(inflated.eighth).length).toBeLessThan(JSON.stringify(normal.eighth).length * 0.75);
    // The newest exchanges stay: the seventh question is still there.
    expect(JSON.stringify(inflated.eighth.messages)).toContain(`7 ${"h".repeat(100)}`);
    expect(JSON.stringify(inflated.eighth.messages)).not.toContain(`1 ${"h".repeat(100)}`);
  });
});
