import type { Thread } from "@protocol";
import { describe, expect, it } from "vitest";
import { isUnread, listed, mergeSeen, movedOn, parseSeen, SEEN_MAX, withSeen } from "./unread";

function thread(over: Partial<Thread> = {}): Thread {
  return {
    id: "thr_a",
    name: "A",
    kind: "general",
    status: "active",
    model: "claude",
    sessionId: null,
    parentThreadId: null,
    instructions: "",
    headId: null,
    lastActivity: 5_000,
    createdAt: 1_000,
    ...over,
  };
}

describe("unread threads", () => {
  const seen = { since: 3_000, threads: { thr_a: 5_000 } };

  it("is unread when its activity passed what was seen while it was open", () => {
    expect(isUnread(thread({ lastActivity: 5_000 }), seen, null)).toBe(false);
    expect(isUnread(thread({ lastActivity: 6_000 }), seen, null)).toBe(true);
  });

  it("never for the open thread", () => {
    expect(isUnread(thread({ lastActivity: 6_000 }), seen, "thr_a")).toBe(false);
  });

  it("counts a thread never opened from when the record began, and not for its mere creation", () => {
    expect(isUnread(thread({ id: "thr_old", lastActivity: 2_000 }), seen, null)).toBe(false);
    expect(isUnread(thread({ id: "thr_b", lastActivity: 4_000 }), seen, null)).toBe(true);
    // Made here after the record began, with nothing in it since.
    expect(isUnread(thread({ id: "thr_new", createdAt: 8_000, lastActivity: 8_000 }), seen, null)).toBe(false);
  });

  it("moves a sight forward only, and answers the same record when nothing is new", () => {
    expect(withSeen(seen, "thr_a", 4_000)).toBe(seen);
    expect(withSeen(seen, "thr_a", 5_000)).toBe(seen);
    expect(withSeen(seen, "thr_a", 7_000).threads.thr_a).toBe(7_000);
    expect(withSeen(seen, "thr_b", 1).threads).toEqual({ thr_a: 5_000, thr_b: 1 });
  });

  it("forgets the least recently active threads past the maximum", () => {
    let record = { since: 0, threads: {} as Record<string, number> };
    for (let i = 1; i <= SEEN_MAX + 5; i++) record = withSeen(record, `thr_${i}`, i);
    expect(Object.keys(record.threads)).toHaveLength(SEEN_MAX);
    expect(record.threads.thr_1).toBeUndefined();
    expect(record.threads[`thr_${SEEN_MAX + 5}`]).toBe(SEEN_MAX + 5);
  });

  it("merges two tabs' records, and starts afresh from what is not a record", () => {
    const merged = mergeSeen({ since: 3_000, threads: { a: 1, b: 9 } }, { since: 2_000, threads: { a: 4, c: 2 } });
    expect(merged).toEqual({ since: 2_000, threads: { a: 4, b: 9, c: 2 } });
    expect(parseSeen(JSON.stringify(merged), 0)).toEqual(merged);
    expect(parseSeen("not json", 42)).toEqual({ since: 42, threads: {} });
    expect(parseSeen(null, 42)).toEqual({ since: 42, threads: {} });
    expect(parseSeen(JSON.stringify({ since: 1, threads: { a: "x", b: 2 } }), 0)).toEqual({ since: 1, threads: { b: 2 } });
  });
});

describe("threads that moved on between two lists", () => {
  it("names those whose activity or status changed, but the open one and new ones", () => {
    const before = listed([thread({ id: "a" }), thread({ id: "b" }), thread({ id: "c" }), thread({ id: "open" })]);
    const after = [
      thread({ id: "a", lastActivity: 9_000 }),
      thread({ id: "b" }),
      thread({ id: "c", status: "completed" }),
      thread({ id: "open", lastActivity: 9_000 }),
      thread({ id: "new", lastActivity: 9_000 }),
    ];
    expect(movedOn(before, after, "open").map((m) => m.thread.id)).toEqual(["a", "c"]);
    expect(movedOn(before, after, "open")[0].was).toEqual({ lastActivity: 5_000, status: "active", waiting: 0 });
  });

  it("names one whose run now waits for an approval, though nothing else of it changed", () => {
    const asked = { runId: "run_1", toolUseId: "toolu_1", toolName: "ops__delete_item", input: {}, expiresAt: 1 };
    const before = listed([thread({ id: "a" })]);
    expect(movedOn(before, [thread({ id: "a", pendingApprovals: [asked] })], null).map((m) => m.thread.id)).toEqual(["a"]);
    expect(movedOn(listed([thread({ id: "a", pendingApprovals: [asked] })]), [thread({ id: "a" })], null)).toEqual([]);
  });
});
