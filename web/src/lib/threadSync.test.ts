import type { Message } from "@protocol";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { frame, message } from "../testing/fixtures";
import { startSync, type MessagesPage } from "../testing/syncHarness";
import { PING_EVERY_MS, ThreadSync } from "./threadSync";

const run = { threadId: "thr_1", runId: "run_1" };
const text = (delta: string, seq: number) => frame("pipeline:stream", { ...run, type: "text", delta }, seq);
const chat = (m: Message, seq: number) => frame("chat:message", { threadId: "thr_1", message: m }, seq);
const started = (seq: number, runId = "run_1") => frame("pipeline:start", { threadId: "thr_1", runId, messageId: "msg_u1" }, seq);
const complete = (seq: number, runId: string) =>
  frame("pipeline:complete", { threadId: "thr_1", runId, commandsHandled: [], commandsUnhandled: [], durationMs: 1 }, seq);

const question = message({ id: "msg_u1", content: "hi" });

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("ThreadSync: connecting", () => {
  it("connects from the seq the messages were read at, reconnects from the last event applied, and applies a replayed event once", async () => {
    const t = await startSync({ messages: [question], lastSeq: 2 });
    t.socket.connect({ lastSeq: 2, running: null });
    t.socket.deliver(started(3), text("hel", 4));
    t.socket.drop();

    t.socket.connect({ lastSeq: 5, running: "run_1" });
    // The server replays from `since`; an event sent twice (a reconnect's race) is applied once.
    t.socket.deliver(text("hel", 4), text("lo", 5));

    expect(t.socket.sinces).toEqual([2, 4]);
    expect(t.state().runs.run_1).toMatchObject({ text: "hello", messageId: "msg_u1", status: "running" });
    expect(t.events.map((f) => f.seq)).toEqual([3, 4, 5]);
    expect(t.connection).toEqual(["open", "closed", "open"]);
  });

  it("reads the messages again when the server lost events, or its sequence went back", async () => {
    const later = message({ id: "msg_u2", createdAt: 2_000 });
    const t = await startSync({ messages: [question], lastSeq: 9 }, { messages: [question, later], lastSeq: 10 }, { messages: [later], lastSeq: 1 });
    t.socket.connect({ lastSeq: 9, running: null });
    t.socket.deliver({ event: "error", data: { code: "replay_unavailable", message: "gone" }, timestamp: 0 });
    await vi.advanceTimersByTimeAsync(0);
    expect(t.state().messages.map((m) => m.id)).toEqual(["msg_u1", "msg_u2"]);

    // The thread was reset: its numbering starts again, and the next event (seq 2) is not dropped.
    t.socket.drop();
    t.socket.connect({ lastSeq: 1, running: null });
    await vi.advanceTimersByTimeAsync(0);
    t.socket.deliver(chat(message({ id: "msg_u3", createdAt: 3_000 }), 2));
    expect(t.reads).toHaveBeenCalledTimes(3);
    expect(t.state().messages.map((m) => m.id)).toContain("msg_u3");
  });
});

describe("ThreadSync: a page loaded during a run", () => {
  it("replays the run from its start (its events only), resumes the replay where a drop cut it, and goes on live", async () => {
    // The server's events: an earlier run ends (1), the question (2), run_1 starts (3) and streams.
    // The page read the messages at 5, in the middle of run_1.
    const t = await startSync({ messages: [question], lastSeq: 5 });
    t.socket.connect({ lastSeq: 5, running: "run_1" });
    expect(t.socket.reconnects).toBe(1);

    // The run goes on while the backfill connects: the server is at 6 by then.
    t.socket.connect({ lastSeq: 6, running: "run_1" });
    t.socket.deliver(complete(1, "run_0"), chat(question, 2), started(3));
    t.socket.drop();
    t.socket.connect({ lastSeq: 7, running: "run_1" });
    t.socket.deliver(text("Hel", 4), text("lo", 5), text(" wor", 6), text("ld", 7));

    expect(t.socket.sinces).toEqual([5, 0, 3]);
    expect(t.state().runOrder).toEqual(["run_1"]);
    expect(t.state().runs.run_1).toMatchObject({ text: "Hello world", messageId: "msg_u1", status: "running" });
    // What the messages read already covered is not handed on again (the outbox, the query cache).
    expect(t.events.map((f) => f.seq)).toEqual([6, 7]);
  });

  it("backfills a run whose start the catch-up does not hold, without doubling its text", async () => {
    const t = await startSync({ messages: [question], lastSeq: 5 });
    t.socket.connect({ lastSeq: 7, running: "run_1" });
    t.socket.deliver(text(" wor", 6), text("ld", 7));
    expect(t.socket.reconnects).toBe(1);

    t.socket.connect({ lastSeq: 7, running: "run_1" });
    t.socket.deliver(started(3), text("Hel", 4), text("lo", 5), text(" wor", 6), text("ld", 7));

    expect(t.socket.sinces).toEqual([5, 0]);
    expect(t.state().runs.run_1.text).toBe("Hello world");
  });

  it("does not backfill a run that started after the messages were read", async () => {
    const t = await startSync({ messages: [question], lastSeq: 5 });
    t.socket.connect({ lastSeq: 7, running: "run_1" });
    t.socket.deliver(started(6), text("Hi", 7));

    expect(t.socket.reconnects).toBe(0);
    expect(t.state().runs.run_1.text).toBe("Hi");
  });
});

describe("ThreadSync: a stale socket", () => {
  it("pings an open socket, and reconnects one that has heard nothing for a minute", async () => {
    const t = await startSync({ messages: [], lastSeq: 0 });
    t.socket.connect({ lastSeq: 0, running: null });

    await vi.advanceTimersByTimeAsync(PING_EVERY_MS);
    t.socket.deliver({ event: "pong", data: {}, timestamp: 0 });
    await vi.advanceTimersByTimeAsync(2 * PING_EVERY_MS);
    expect(t.socket.sent).toEqual([{ type: "ping" }, { type: "ping" }, { type: "ping" }]);
    expect(t.socket.reconnects).toBe(0);

    // The pong was at 25 s: at 100 s the line has been silent for 75 s.
    await vi.advanceTimersByTimeAsync(PING_EVERY_MS);
    expect(t.socket.reconnects).toBe(1);
    expect(t.socket.sent).toHaveLength(3);
  });

  it("applies nothing from the socket of a thread it left, and closes it", async () => {
    const t = await startSync({ messages: [question], lastSeq: 2 });
    t.socket.connect({ lastSeq: 2, running: null });
    const before = t.state();
    t.sync.dispose();

    t.socket.deliver(started(3), text("late", 4));
    t.socket.drop();
    await vi.advanceTimersByTimeAsync(5 * PING_EVERY_MS);

    expect(t.socket.closedWith).toBe(1000);
    expect(t.state()).toBe(before);
    expect(t.events).toEqual([]);
    expect(t.connection).toEqual(["open"]);
    expect(t.socket.sent).toEqual([]);
  });

  it("opens no socket when the thread is left before its messages are read", async () => {
    let answer!: (page: MessagesPage) => void;
    const openSocket = vi.fn();
    const dispatch = vi.fn();
    const sync = new ThreadSync({
      readMessages: () => new Promise((resolve) => (answer = resolve)),
      openSocket,
      dispatch,
      onEvent: vi.fn(),
      onConnection: vi.fn(),
    });
    const starting = sync.start();
    sync.dispose();
    answer({ messages: [question], lastSeq: 2 });
    await starting;

    expect(openSocket).not.toHaveBeenCalled();
    expect(dispatch.mock.calls).toEqual([[{ type: "loading" }]]);
  });
});
