import { describe, expect, it, vi } from "vitest";
import { createPrewarmer, PREWARM_EVERY_MS } from "./prewarm";

describe("createPrewarmer", () => {
  it("warms each thread at most once in a while", () => {
    let now = 1_000;
    const send = vi.fn(() => Promise.resolve());
    const prewarm = createPrewarmer(send, () => now);
    expect(prewarm("thr_a")).toBe(true);
    expect(prewarm("thr_a")).toBe(false);
    expect(prewarm("thr_b")).toBe(true);
    now += PREWARM_EVERY_MS - 1;
    expect(prewarm("thr_a")).toBe(false);
    now += 1;
    expect(prewarm("thr_a")).toBe(true);
    expect(send.mock.calls).toEqual([["thr_a"], ["thr_b"], ["thr_a"]]);
  });

  it("ignores failures, rejected or thrown", async () => {
    const rejecting = createPrewarmer(() => Promise.reject(new Error("offline")));
    expect(rejecting("thr_a")).toBe(true);
    const throwing = createPrewarmer(() => {
      throw new Error("no fetch");
    });
    expect(() => throwing("thr_a")).not.toThrow();
    await new Promise((r) => setTimeout(r, 0)); // no unhandled rejection follows
  });
});
