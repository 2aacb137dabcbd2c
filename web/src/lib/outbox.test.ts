import type { Message } from "@protocol";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../api";
import { userStorage } from "../session/userStorage";
import { attachment, memoryStore, message } from "../testing/fixtures";
import { createOutbox, retryDelay, type OutboxItem } from "./outbox";

/** A delivery whose answers the test gives, one request at a time. */
function controlledDelivery() {
  const calls: { item: OutboxItem; resolve: (m: Message) => void; reject: (e: unknown) => void }[] = [];
  const deliver = vi.fn(
    (item: OutboxItem) => new Promise<Message>((resolve, reject) => calls.push({ item, resolve, reject })),
  );
  return { deliver, calls };
}

const stored = (item: OutboxItem, id = "msg_1") =>
  message({ id, threadId: item.threadId, content: item.content, clientMessageId: item.clientMessageId });

/** An outbox as a session runs it: started. */
function started(...args: Parameters<typeof createOutbox>) {
  const outbox = createOutbox(...args);
  outbox.start();
  return outbox;
}

/** Lets the outbox's promise callbacks run. */
const settle = () => vi.advanceTimersByTimeAsync(0);

let store: ReturnType<typeof memoryStore>;

beforeEach(() => {
  vi.useFakeTimers();
  store = memoryStore();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("outbox sending", () => {
  it("posts at once, and drops the item when the server acknowledges it", async () => {
    const { deliver, calls } = controlledDelivery();
    const outbox = started({ storage: userStorage("u", store), deliver });
    const confirmed = vi.fn();
    outbox.onConfirmed(confirmed);

    const item = outbox.enqueue("thr_1", "hello");
    expect(outbox.items.get()).toMatchObject([{ clientMessageId: item.clientMessageId, state: "sending", attempts: 1 }]);
    calls[0].resolve(stored(item));
    await settle();

    expect(outbox.items.get()).toEqual([]);
    expect(confirmed).toHaveBeenCalledWith(expect.objectContaining({ id: "msg_1" }));
  });

  it("retries a transient failure later with the same clientMessageId, waiting Retry-After", async () => {
    const { deliver, calls } = controlledDelivery();
    const outbox = started({ storage: userStorage("u", store), deliver });
    const item = outbox.enqueue("thr_1", "hello");

    calls[0].reject(new ApiError(429, "rate_limited", "slow down", undefined, 5));
    await settle();
    expect(outbox.items.get()).toMatchObject([{ state: "waiting", error: "slow down" }]);
    await vi.advanceTimersByTimeAsync(4_900);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(calls).toHaveLength(2);
    expect(calls[1].item.clientMessageId).toBe(item.clientMessageId);
    expect(outbox.items.get()).toMatchObject([{ state: "sending", attempts: 2 }]);
  });

  it("gives up on a refusal until the user retries", async () => {
    const { deliver, calls } = controlledDelivery();
    const outbox = started({ storage: userStorage("u", store), deliver });
    const item = outbox.enqueue("thr_1", "x".repeat(10));

    calls[0].reject(new ApiError(400, "invalid_request", "too long"));
    await settle();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(1);
    expect(outbox.items.get()).toMatchObject([{ state: "failed", error: "too long" }]);

    outbox.retry(item.clientMessageId);
    expect(calls).toHaveLength(2);
  });

  it("keeps unsent items in the user's storage, and a later page resumes them", async () => {
    const first = started({ storage: userStorage("u", store), deliver: () => new Promise(() => {}) });
    const item = first.enqueue("thr_1", "survive a reload");

    const { deliver, calls } = controlledDelivery();
    const second = createOutbox({ storage: userStorage("u", store), deliver });
    expect(second.items.get()).toMatchObject([{ clientMessageId: item.clientMessageId }]);
    expect(calls).toEqual([]);
    second.start();
    expect(calls.map((c) => c.item.content)).toEqual(["survive a reload"]);
    // Another user's outbox does not see it.
    expect(started({ storage: userStorage("other", store), deliver }).items.get()).toEqual([]);
  });

  it("does not erase another tab's items when it writes its own", () => {
    const never = () => new Promise<Message>(() => {});
    const tabA = started({ storage: userStorage("u", store), deliver: never });
    const tabB = started({ storage: userStorage("u", store), deliver: never });
    tabA.enqueue("thr_1", "from A");
    tabB.enqueue("thr_1", "from B");
    const reloaded = started({ storage: userStorage("u", store), deliver: never });
    expect(reloaded.items.get().map((i) => i.content).sort()).toEqual(["from A", "from B"]);
  });

  it("once stopped, neither retries nor writes to storage", async () => {
    const { deliver, calls } = controlledDelivery();
    const storage = userStorage("u", store);
    const outbox = started({ storage, deliver });
    outbox.enqueue("thr_1", "hello");
    outbox.stop();
    storage.clear();

    calls[0].reject(new ApiError(503, "unavailable", "down"));
    await settle();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(1);
    expect(store.keys()).toEqual([]);
  });

  it("after a stop and a new start, sends again what had not landed, with the same clientMessageId", async () => {
    const { deliver, calls } = controlledDelivery();
    const outbox = started({ storage: userStorage("u", store), deliver });
    const item = outbox.enqueue("thr_1", "hello");
    outbox.stop();
    calls[0].resolve(stored(item));
    await settle();
    outbox.start();
    expect(calls.map((c) => c.item.clientMessageId)).toEqual([item.clientMessageId, item.clientMessageId]);
    calls[1].resolve(stored(item));
    await settle();
    expect(outbox.items.get()).toEqual([]);
  });

  it("forgets a deleted thread's items", () => {
    const outbox = started({ storage: userStorage("u", store), deliver: () => new Promise(() => {}) });
    outbox.enqueue("thr_1", "one");
    outbox.enqueue("thr_2", "two");
    outbox.forgetThread("thr_1");
    expect(outbox.items.get().map((i) => i.threadId)).toEqual(["thr_2"]);
  });
});

describe("outbox edits and files", () => {
  it("keeps an edit's target and files with the item, through a reload of the page", async () => {
    const { deliver, calls } = controlledDelivery();
    const outbox = started({ storage: userStorage("u", store), deliver });
    const files = [attachment({ id: "att_1" })];
    const item = outbox.enqueue("thr_1", "better question", { attachments: files, branch: { messageId: "msg_old" } });
    expect(calls[0].item).toMatchObject({ content: "better question", attachments: files, branch: { messageId: "msg_old" } });

    // The next page's outbox reads the same item back, and sends it the same way.
    calls[0].reject(new ApiError(0, "network", "offline"));
    await settle();
    const later = controlledDelivery();
    started({ storage: userStorage("u", store), deliver: later.deliver });
    expect(later.calls[0].item).toMatchObject({ clientMessageId: item.clientMessageId, attachments: files, branch: { messageId: "msg_old" } });
  });

  it("stores nothing extra for a plain post", () => {
    const outbox = started({ storage: userStorage("u", store), deliver: () => new Promise(() => {}) });
    const item = outbox.enqueue("thr_1", "hi", { attachments: [] });
    expect(item).not.toHaveProperty("attachments");
    expect(item).not.toHaveProperty("branch");
  });

  it("does not take another client's message for a regeneration of the same content", () => {
    const outbox = started({ storage: userStorage("u", store), deliver: () => new Promise(() => {}) });
    outbox.enqueue("thr_1", "hello", { branch: { messageId: "msg_q", regenerate: true } });
    outbox.reconcile(message({ id: "msg_api", content: "hello", clientMessageId: null }));
    expect(outbox.items.get()[0].echoedMessageId).toBeUndefined();
  });
});

describe("outbox reconcile", () => {
  const pendingOutbox = () => started({ storage: userStorage("u", store), deliver: () => new Promise(() => {}) });

  it("drops the pending item when the socket brings its message, matched by the top-level clientMessageId", () => {
    const outbox = pendingOutbox();
    const item = outbox.enqueue("thr_1", "hello");
    outbox.reconcile(message({ content: "hello", clientMessageId: item.clientMessageId }));
    expect(outbox.items.get()).toEqual([]);
  });

  it("keeps its item visible when another client's message has the same content", () => {
    const outbox = pendingOutbox();
    const item = outbox.enqueue("thr_1", "hello");
    outbox.reconcile(message({ id: "msg_other", content: "hello", clientMessageId: "someone-else" }));
    expect(outbox.items.get()).toMatchObject([{ clientMessageId: item.clientMessageId }]);
    expect(outbox.items.get()[0].echoedMessageId).toBeUndefined();
  });

  it("hides, but keeps waiting on, its item when a look-alike without a clientMessageId arrives", () => {
    const outbox = pendingOutbox();
    const item = outbox.enqueue("thr_1", "hello");
    outbox.reconcile(message({ id: "msg_api", content: "hello", clientMessageId: null }));
    expect(outbox.items.get()).toMatchObject([{ clientMessageId: item.clientMessageId, echoedMessageId: "msg_api" }]);
  });

  it("ignores the assistant's messages", () => {
    const outbox = pendingOutbox();
    outbox.enqueue("thr_1", "hello");
    outbox.reconcile(message({ role: "assistant", content: "hello" }));
    expect(outbox.items.get()[0].echoedMessageId).toBeUndefined();
  });
});

describe("outbox retry delay", () => {
  it("waits a 429's Retry-After", () => {
    expect(retryDelay(new ApiError(429, "rate_limited", "slow down", undefined, 5), 1)).toBe(5_000);
  });

  it("backs off a network failure or a 5xx, doubling up to 30 s, with jitter", () => {
    const first = retryDelay(new ApiError(0, "network", "offline"), 1)!;
    expect(first).toBeGreaterThanOrEqual(500);
    expect(first).toBeLessThanOrEqual(1_000);
    const later = retryDelay(new ApiError(503, "unavailable", "down"), 3)!;
    expect(later).toBeGreaterThanOrEqual(2_000);
    expect(later).toBeLessThanOrEqual(4_000);
    expect(retryDelay(new TypeError("Failed to fetch"), 20)).toBeLessThanOrEqual(30_000);
  });

  it("tries again after a 401 (the session may sign in again), never after another refusal", () => {
    expect(retryDelay(new ApiError(401, "unauthorized", "who?"), 1)).not.toBeNull();
    expect(retryDelay(new ApiError(400, "invalid_request", "too long"), 1)).toBeNull();
    expect(retryDelay(new ApiError(404, "not_found", "gone"), 1)).toBeNull();
  });
});
