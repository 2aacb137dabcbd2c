import { MAX_BODY_BYTES, type Message, type SendFrame, type SocketFrameMap } from "@protocol";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../api";
import { userStorage } from "../session/userStorage";
import { attachment, frame, memoryStore, message } from "../testing/fixtures";
import { startSync } from "../testing/syncHarness";
import { OpenSockets, socketFirst } from "./messageTransport";
import { createOutbox, type OutboxItem } from "./outbox";
import { SEND_ANSWER_MS } from "./socketSends";

/** An open thread (its sync, socket and chat state) and a session's outbox sending over it, as the app wires them. */
async function openThread() {
  const t = await startSync({ messages: [], lastSeq: 0 });
  t.socket.connect({ lastSeq: 0, running: null });
  const sockets = new OpenSockets();
  const leave = sockets.add("thr_1", (f) => t.sync.deliver(f));
  const posts: { item: OutboxItem; resolve: (m: Message) => void; reject: (e: unknown) => void }[] = [];
  const post = vi.fn((item: OutboxItem) => new Promise<Message>((resolve, reject) => posts.push({ item, resolve, reject })));
  const outbox = createOutbox({ storage: userStorage("u", memoryStore()), deliver: socketFirst(sockets, post) });
  outbox.start();
  const confirmed = vi.fn((m: Message) => t.dispatch({ type: "message", message: m }));
  outbox.onConfirmed(confirmed);
  const frames = () => t.socket.sent as SendFrame[];
  return { ...t, outbox, post, posts, confirmed, frames, leave };
}

const stored = (item: Pick<OutboxItem, "content" | "clientMessageId">, id = "msg_1") =>
  message({ id, content: item.content, clientMessageId: item.clientMessageId });
const accepted = (data: SocketFrameMap["accepted"]) => ({ event: "accepted" as const, data, timestamp: 0 });
const refused = (data: SocketFrameMap["error"]) => ({ event: "error" as const, data, timestamp: 0 });
const userMessages = (t: Awaited<ReturnType<typeof openThread>>) => t.state().messages.filter((m) => m.role === "user");

/** Lets the promise callbacks run. */
const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("sending over the thread's open socket", () => {
  it("sends a send frame, and is done on its accepted, without a POST", async () => {
    const t = await openThread();
    const item = t.outbox.enqueue("thr_1", "hello", { attachments: [attachment({ id: "att_1" })] });
    expect(t.frames()).toEqual([{ type: "send", content: "hello", clientMessageId: item.clientMessageId, attachments: ["att_1"] }]);
    expect(t.outbox.items.get()).toMatchObject([{ state: "sending", attempts: 1 }]);

    t.socket.deliver(accepted({ clientMessageId: item.clientMessageId, message: stored(item), duplicate: false }));
    await settle();
    expect(t.outbox.items.get()).toEqual([]);
    expect(t.confirmed).toHaveBeenCalledTimes(1);
    expect(userMessages(t).map((m) => m.id)).toEqual(["msg_1"]);
    expect(t.post).not.toHaveBeenCalled();
  });

  it("takes a duplicate answer as the message, and an answer given twice once", async () => {
    const t = await openThread();
    const item = t.outbox.enqueue("thr_1", "sent before a reload");
    const answer = { clientMessageId: item.clientMessageId, message: stored(item), duplicate: true };
    t.socket.deliver(accepted(answer), accepted(answer));
    await settle();
    expect(t.outbox.items.get()).toEqual([]);
    expect(t.confirmed).toHaveBeenCalledTimes(1);
    expect(userMessages(t)).toHaveLength(1);
  });

  it("rejects on its error frame with the ApiError POST would raise, and the outbox treats it as POST's", async () => {
    const t = await openThread();
    const refusal = t.sync.deliver({ type: "send", content: "x", clientMessageId: "c_1" });
    t.socket.deliver(refused({ code: "rate_limited", message: "slow down", clientMessageId: "c_1", retryAfter: 5 }));
    await expect(refusal).rejects.toEqual(new ApiError(429, "rate_limited", "slow down", undefined, 5));
    await expect(refusal).rejects.toMatchObject({ status: 429, retryAfter: 5, transient: true });

    // Rate limited: waits Retry-After, then sends again with the same id; refused: waits for the user.
    const item = t.outbox.enqueue("thr_1", "hello");
    t.socket.deliver(refused({ code: "rate_limited", message: "slow down", clientMessageId: item.clientMessageId, retryAfter: 5 }));
    await settle();
    expect(t.outbox.items.get()).toMatchObject([{ state: "waiting", error: "slow down" }]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(t.frames().map((f) => f.clientMessageId)).toEqual(["c_1", item.clientMessageId, item.clientMessageId]);
    t.socket.deliver(refused({ code: "invalid_request", message: "no", clientMessageId: item.clientMessageId }));
    await settle();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(t.outbox.items.get()).toMatchObject([{ state: "failed", error: "no", attempts: 2 }]);
    expect(t.post).not.toHaveBeenCalled();
  });
});

describe("when the socket does not deliver", () => {
  it("posts with the same clientMessageId when the socket closes before the answer, the item still sending", async () => {
    const t = await openThread();
    const item = t.outbox.enqueue("thr_1", "hello");
    t.socket.drop();
    await settle();
    expect(t.post).toHaveBeenCalledTimes(1);
    expect(t.posts[0].item.clientMessageId).toBe(item.clientMessageId);
    expect(t.outbox.items.get()).toMatchObject([{ state: "sending", attempts: 1 }]);
    t.posts[0].resolve(stored(item));
    await settle();
    expect(t.outbox.items.get()).toEqual([]);
  });

  it("posts when the socket gives no answer in time", async () => {
    const t = await openThread();
    const item = t.outbox.enqueue("thr_1", "hello");
    await vi.advanceTimersByTimeAsync(SEND_ANSWER_MS - 1);
    expect(t.post).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(t.posts.map((p) => p.item.clientMessageId)).toEqual([item.clientMessageId]);
  });

  it("posts, without a frame, when the socket is not open, the thread is left, or the frame would be too long", async () => {
    const t = await openThread();
    t.outbox.enqueue("thr_1", "y".repeat(MAX_BODY_BYTES));
    t.outbox.enqueue("thr_2", "another thread");
    t.outbox.enqueue("thr_1", "an edit", { branch: { messageId: "msg_0" } });
    t.socket.drop();
    t.outbox.enqueue("thr_1", "while closed");
    await settle();
    expect(t.frames()).toEqual([]);
    expect(t.posts.map((p) => p.item.content.slice(0, 14)).sort()).toEqual(["an edit", "another thread", "while closed", "y".repeat(14)]);

    const again = await openThread();
    again.outbox.enqueue("thr_1", "sent as the thread is left");
    again.leave();
    again.sync.dispose();
    await settle();
    expect(again.post).toHaveBeenCalledTimes(1);
  });

  it("does not double the message when the accepted comes after the POST", async () => {
    const t = await openThread();
    const item = t.outbox.enqueue("thr_1", "hello");
    await vi.advanceTimersByTimeAsync(SEND_ANSWER_MS);
    t.posts[0].resolve(stored(item));
    await settle();

    // The socket was only slow: its broadcast and its answer arrive after all.
    t.socket.deliver(frame("chat:message", { threadId: "thr_1", message: stored(item) }, 1));
    t.socket.deliver(accepted({ clientMessageId: item.clientMessageId, message: stored(item), duplicate: false }));
    await settle();
    expect(t.confirmed).toHaveBeenCalledTimes(1);
    expect(t.post).toHaveBeenCalledTimes(1);
    expect(userMessages(t).map((m) => m.id)).toEqual(["msg_1"]);
    expect(t.outbox.items.get()).toEqual([]);
  });
});
