// The replay buffer's pruning (worker/thread/store/run-log.ts, RunLog.prune, through RoomStore.prune): after a run, the frames
// of runs before the previous one are deleted (and those runs' rows, once ended), unless
// the run started within the last REPLAY_MIN_AGE_MS (a minute). A socket's `?since=` older than what
// is left gets `replay_unavailable` after `ready`, then what is left (docs/protocol-notes.md).
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { ThreadRoom } from "../../worker/thread/room";
import type { RoomStore } from "../../worker/thread/store";
import { api, createThread, settle, Socket, threadObject, until } from "../helpers";

const MINUTE = 60_000;
const storeOf = (room: ThreadRoom): RoomStore => room.parts.store;

/** Runs `fn` on the store of an object of its own (no thread in it: the run log and buffer only). */
const withStore = <T>(fn: (store: RoomStore, sql: SqlStorage) => T) =>
  runInDurableObject(threadObject(`replay-${crypto.randomUUID()}`), (room: ThreadRoom, state) => fn(storeOf(room), state.storage.sql));

/** A run as the queue records one: started at `at`, its frames `count` seqs from `firstSeq`, ended. */
function playRun(store: RoomStore, runId: string, firstSeq: number, count: number, at: number, end = true) {
  store.runs.started(runId, `msg_${runId}`, firstSeq, at);
  store.prune(at);
  for (let seq = firstSeq; seq < firstSeq + count; seq++) store.replay.append(seq, JSON.stringify({ event: "pipeline:stream", data: { runId }, seq }));
  if (end) {
    store.runs.stored(runId, { status: "completed", commandsHandled: [], commandsUnhandled: [], durationMs: 1 });
    store.runs.ended(runId);
  }
}

const seqsOf = (store: RoomStore) => store.replay.since(0).map((f) => JSON.parse(f).seq as number);
const runIds = (sql: SqlStorage) => sql.exec<{ run_id: string }>("SELECT run_id FROM runs ORDER BY first_seq").toArray().map((r) => r.run_id);

describe("RunLog.prune trims the replay buffer", () => {
  it("deletes the frames (and ended rows) of runs older than the previous one and than a minute", async () => {
    await withStore((store, sql) => {
      const now = Date.now();
      playRun(store, "a", 1, 10, now - 30 * MINUTE);
      playRun(store, "b", 11, 10, now - 20 * MINUTE);
      playRun(store, "c", 21, 10, now - 10 * MINUTE);
      // pruning after c kept b (the run before it) and c: a, neither the previous run nor recent, went.
      expect(seqsOf(store)).toEqual(Array.from({ length: 20 }, (_, i) => i + 11));
      expect(runIds(sql)).toEqual(["b", "c"]);
      playRun(store, "d", 31, 5, now, false);
      // pruning after d keeps c and nothing older: none of them is recent.
      expect(seqsOf(store)).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35]);
      expect(store.replay.oldestSeq()).toBe(21);
      expect(runIds(sql)).toEqual(["c", "d"]);
      expect(store.runs.get("a")).toBeNull();
      expect(store.runs.firstSeqOf("c")).toBe(21);
    });
  });

  it("keeps every run started within the last minute, however many", async () => {
    await withStore((store, sql) => {
      const now = Date.now();
      playRun(store, "old", 1, 5, now - 10 * MINUTE);
      for (let i = 0; i < 6; i++) playRun(store, `r${i}`, 6 + i * 5, 5, now - 50_000 + i * 1_000);
      playRun(store, "now", 36, 5, now, false);
      // "old" went when r1 was pruned after (it was neither the previous run nor recent); r0..r5 all stay.
      expect(store.replay.oldestSeq()).toBe(6);
      expect(seqsOf(store)).toHaveLength(35);
      expect(runIds(sql)).toEqual(["r0", "r1", "r2", "r3", "r4", "r5", "now"]);
    });
  });

  it("counts a run started exactly a minute ago as recent, and one a millisecond older as not", async () => {
    const oldestAfter = (age: number) =>
      withStore((store) => {
        const now = Date.now();
        playRun(store, "first", 1, 5, now - 20 * MINUTE);
        playRun(store, "edge", 6, 5, now - age);
        playRun(store, "prev", 11, 5, now - 1_000);
        playRun(store, "new", 16, 5, now, false);
        return store.replay.oldestSeq();
      });
    expect(await oldestAfter(MINUTE)).toBe(6);
    expect(await oldestAfter(MINUTE + 1)).toBe(11);
  });

  it("deletes an old run's frames but keeps its row while its end event is still owed (recovery needs it)", async () => {
    await withStore((store, sql) => {
      const now = Date.now();
      playRun(store, "a", 1, 5, now - 30 * MINUTE, false);
      store.runs.stored("a", { status: "completed", commandsHandled: [], commandsUnhandled: [], durationMs: 1 }); // not ended
      playRun(store, "b", 6, 5, now - 20 * MINUTE);
      playRun(store, "c", 11, 5, now, false);
      expect(store.replay.oldestSeq()).toBe(6);
      expect(runIds(sql)).toEqual(["a", "b", "c"]);
      expect(store.runs.unended().map((r) => r.runId)).toEqual(["a"]);
    });
  });

  it("prunes nothing on a thread's first run", async () => {
    await withStore((store) => {
      for (let seq = 1; seq <= 4; seq++) store.replay.append(seq, JSON.stringify({ event: "chat:message", seq }));
      playRun(store, "only", 5, 3, Date.now() - 10 * MINUTE, false);
      expect(seqsOf(store)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    });
  });
});

describe("?since= replay after pruning (through a real thread)", () => {
  afterEach(() => settle());

  async function talk(threadId: string, ws: Socket, content: string, runs: number) {
    expect((await api(`/api/threads/${threadId}/messages`, { body: { content } })).status).toBe(202);
    await ws.waitForRunEnd(runs);
  }

  /** Frames a socket opened with `?since=` gets before going quiet: per-socket ones have no seq. */
  async function connect(threadId: string, since: number) {
    const ws = await Socket.open(threadId, `?since=${since}`);
    const { lastSeq } = (await ws.waitFor((f) => f.some((x) => x.event === "ready"))).find((f) => f.event === "ready")!.data;
    if (since < lastSeq) await ws.waitFor((f) => f.some((x) => x.seq === lastSeq), 5_000, `replay up to ${lastSeq}`);
    ws.close();
    return { frames: ws.frames, lastSeq };
  }

  it("replays everything within the minute; after the runs age, what is left, behind replay_unavailable", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    for (let i = 1; i <= 3; i++) await talk(thread.id, ws, `message ${i}`, i);
    const room = threadObject(thread.id);
    const firstSeqs = await runInDurableObject(room, (_r: ThreadRoom, state) =>
      state.storage.sql.exec<{ first_seq: number }>("SELECT first_seq FROM runs ORDER BY first_seq").toArray().map((r) => r.first_seq),
    );
    expect(firstSeqs).toHaveLength(3); // all three runs are recent: none was pruned
    // Within the minute, a client that has seen nothing gets everything, the first message included.
    const fromStart = await connect(thread.id, 0);
    expect(fromStart.frames.some((f) => f.event === "error")).toBe(false);
    expect(fromStart.frames.filter((f) => f.seq !== undefined).map((f) => f.seq)[0]).toBe(1);
    const before = await connect(thread.id, firstSeqs[0] - 1);
    expect(before.frames.some((f) => f.event === "error")).toBe(false);
    expect(before.frames.filter((f) => f.event === "pipeline:start").map((f) => f.seq)).toEqual(firstSeqs);
    expect(before.frames.filter((f) => f.event === "pipeline:complete")).toHaveLength(3);

    // Every run is a minute old or more, as if the thread had sat idle: the pruning after the next run
    // (a turn after its end events) trims.
    await runInDurableObject(room, (_r: ThreadRoom, state) => void state.storage.sql.exec("UPDATE runs SET at = at - ?", 5 * MINUTE));
    await talk(thread.id, ws, "message 4", 4);
    ws.close();
    const [, , third] = firstSeqs;
    // The frames of the third run (the one before the fourth) on, from its message's chat:message.
    const kept = third - 1;
    const oldest = await until(() => runInDurableObject(room, (r: ThreadRoom) => storeOf(r).replay.oldestSeq()), (seq) => seq === kept);
    expect(oldest).toBe(kept);

    // since=0: ready, then replay_unavailable, then what is left, in order, up to the last seq.
    const all = await connect(thread.id, 0);
    expect(all.frames[0].event).toBe("ready");
    expect(all.frames[1]).toMatchObject({ event: "error", data: { code: "replay_unavailable" } });
    expect(all.frames[1].seq).toBeUndefined();
    const replayed = all.frames.filter((f) => f.seq !== undefined).map((f) => f.seq!);
    expect(replayed[0]).toBe(kept);
    expect(all.frames.find((f) => f.seq === kept)).toMatchObject({ event: "chat:message", data: { message: { content: "message 3" } } });
    expect(replayed).toEqual(Array.from({ length: all.lastSeq - kept + 1 }, (_, i) => kept + i));
    // Nothing of the first two runs comes back.
    expect(all.frames.some((f) => f.event === "pipeline:start" && [firstSeqs[0], firstSeqs[1]].includes(f.seq!))).toBe(false);
    expect(all.frames.filter((f) => f.event === "pipeline:start")).toHaveLength(2);

    // since just before the oldest kept frame: nothing is missing, so no error.
    const edge = await connect(thread.id, kept - 1);
    expect(edge.frames.some((f) => f.event === "error")).toBe(false);
    expect(edge.frames.filter((f) => f.seq !== undefined).map((f) => f.seq)[0]).toBe(kept);
    // One further back is a gap.
    const gap = await connect(thread.id, kept - 2);
    expect(gap.frames[1]).toMatchObject({ event: "error", data: { code: "replay_unavailable" } });
    // Up to date: ready only.
    const current = await connect(thread.id, all.lastSeq);
    expect(current.frames.map((f) => f.event)).toEqual(["ready"]);

    // The messages themselves are not the buffer's: all eight are still there.
    const { messages } = await (await api(`/api/threads/${thread.id}/messages?kinds=text`)).json<any>();
    expect(messages).toHaveLength(8);
  });
});
