// The thread's object as its primary store: D1 off the hot path, mirrored exactly once, ownership
// answered by the object, the queue bound, idempotency that cannot be lost, threads from before.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ThreadRoom } from "../../worker/thread/room";
import type { UserRoom } from "../../worker/user/room";
import { roomStub } from "../../worker/thread/room-stub";
import { api, createThread, env, marker, messagesOf, script, settle, Socket, systemText, threadObject, until, upstreamRequests, userObject } from "../helpers";
import { countRows, insertThread } from "../http/util";

const inRoom = <T>(threadId: string, fn: (room: ThreadRoom) => T) => runInDurableObject(threadObject(threadId), (room: ThreadRoom) => fn(room));
const faults = (threadId: string, f: Partial<ThreadRoom["faults"]["d1"]>) => inRoom(threadId, (room) => void Object.assign(room.faults.d1, f));

async function post(threadId: string, content: string, clientMessageId?: string) {
  return api(`/api/threads/${threadId}/messages`, { body: { content, ...(clientMessageId ? { clientMessageId } : {}) } });
}

/** The JSON lines the objects log, as they are written (the objects share this isolate). */
function logLines() {
  const lines: any[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((line: unknown) => {
    if (typeof line === "string" && line.startsWith("{")) lines.push(JSON.parse(line));
  });
  return { lines, restore: () => spy.mockRestore() };
}

afterEach(() => settle());

describe("D1 off the hot path", () => {
  it("a warm thread's run makes no D1 round trip before the model request, and one in all (its flush)", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    expect((await post(thread.id, "warm me up")).status).toBe(202);
    await ws.waitForRunEnd(1);
    const log = logLines();
    try {
      expect((await post(thread.id, "now warm")).status).toBe(202);
      await ws.waitForRunEnd(2);
      const runId = ws.events("pipeline:start")[1].data.runId;
      const finished: any = await until(async () => log.lines.find((l) => l.message === "run finished" && l.runId === runId), Boolean);
      expect(finished.d1BeforeModel).toBe(0);
      expect(finished.mirror.rows).toBeGreaterThan(0);
      expect(finished.d1RoundTrips + finished.mirror.d1RoundTrips).toBe(1);
    } finally {
      log.restore();
      ws.close();
    }
  });

  it("a new thread's first run reads step 0's inputs in one D1 round trip", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const log = logLines();
    try {
      await post(thread.id, "cold");
      await ws.waitForRunEnd(1);
      const runId = ws.events("pipeline:start")[0].data.runId;
      const finished: any = await until(async () => log.lines.find((l) => l.message === "run finished" && l.runId === runId), Boolean);
      expect(finished.d1BeforeModel).toBe(1);
    } finally {
      log.restore();
      ws.close();
    }
  });

  it("goes on while D1 is down; once it is back, every message and run is in D1 exactly once", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    await faults(thread.id, { down: true });
    for (const content of ["one", "two", "three"]) expect((await post(thread.id, content, `down-${content}`)).status).toBe(202);
    await ws.waitForRunEnd(3);
    expect(ws.events("pipeline:complete")).toHaveLength(3);
    // The object answers for itself: the messages are there, and D1 has none of them yet.
    const texts = (await messagesOf(thread.id, "?kinds=text")).messages;
    expect(texts).toHaveLength(6);
    expect(await countRows("messages", "thread_id = ?", thread.id)).toBe(0);

    await faults(thread.id, { down: false });
    await until(() => countRows("messages", "thread_id = ? AND kind = 'text'", thread.id), (n) => n === 6, 15_000);
    const runIds = ws.events("pipeline:start").map((f) => f.data.runId);
    for (const m of texts) expect(await countRows("messages", "id = ?", m.id)).toBe(1);
    for (const runId of runIds) expect(await countRows("agent_runs", "id = ?", runId)).toBe(1);
    expect(await countRows("metrics", `run_id IN (${runIds.map(() => "?").join(",")})`, ...runIds)).toBe(runIds.length * 6);
    const d1Thread = await env.DB.prepare("SELECT head_id, status FROM threads WHERE id = ?").bind(thread.id).first<any>();
    expect(d1Thread).toEqual({ head_id: texts.filter((m) => m.role === "user").pop().id, status: "active" });
    ws.close();
  });

  it("drains an outbox longer than SQLite binds parameters (100) once D1 is back", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    await faults(thread.id, { down: true });
    for (let i = 0; i < 8; i++) expect((await post(thread.id, `while down ${i}`)).status).toBe(202);
    await ws.waitForRunEnd(8, 20_000);
    const waiting = () => inRoom(thread.id, (room) => room.parts.store.outbox.size());
    expect(await waiting()).toBeGreaterThan(100);
    // The next run's flush finds D1 back (the retry's backoff has grown past the test's patience).
    await faults(thread.id, { down: false });
    expect((await post(thread.id, "back up")).status).toBe(202);
    await ws.waitForRunEnd(9);
    await until(waiting, (n) => n === 0, 15_000);
    expect(await countRows("messages", "thread_id = ? AND kind = 'text'", thread.id)).toBe(18);
    ws.close();
  });

  it("a restart in the middle of a flush loses and doubles nothing", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    await faults(thread.id, { delayMs: 400 });
    await post(thread.id, "flush me slowly", "slow-flush");
    await ws.waitForRunEnd(1);
    // The run's flush is waiting on D1 now; the object restarts under it.
    await new Promise((r) => setTimeout(r, 100));
    await runInDurableObject(threadObject(thread.id), (_room, state) => state.abort("restart mid-flush")).catch(() => {});
    ws.close();
    // The next touch (a client coming back) starts the new instance, which finds the outbox and
    // flushes it again; without one, the watchdog alarm armed with the run does, within 30 s.
    expect((await api(`/api/threads/${thread.id}`)).status).toBe(200);
    const runId = ws.events("pipeline:start")[0].data.runId;
    await until(() => countRows("agent_runs", "id = ?", runId), (n) => n === 1, 15_000);
    const ids = (await messagesOf(thread.id)).messages.map((m) => m.id);
    for (const id of ids) expect(await countRows("messages", "id = ?", id)).toBe(1);
    expect(await countRows("messages", "thread_id = ?", thread.id)).toBe(ids.length);
    expect(await countRows("metrics", "run_id = ?", runId)).toBe(6);
  });
});

describe("the object answers for its thread", () => {
  it("gives another user's id not found, from the object itself", async () => {
    const thread = await createThread();
    const stub = roomStub(env, thread.id);
    const other = { threadId: thread.id, userId: "someone-else" };
    for (const reply of [await stub.get(other), await stub.messages(other, { limit: 10 }), await stub.stop(other), await stub.accept(other, { content: "hi" })]) {
      expect(reply).toEqual({ ok: false, error: { code: "not_found", message: "Thread not found" } });
    }
    expect((await stub.get({ threadId: thread.id, userId: "local" })).ok).toBe(true);
    expect((await messagesOf(thread.id)).messages).toHaveLength(0);
  });

  it("holds its queue bound exactly against 60 concurrent posts", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "hang" }]);
    const ws = await Socket.open(thread.id);
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => post(thread.id, i === 0 ? m : `${m} queued ${i}`)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    expect((await messagesOf(thread.id, "?kinds=text&limit=500")).messages).toHaveLength(20);
    await api(`/api/threads/${thread.id}/stop`, { method: "POST" });
    await ws.waitForRunEnd(20, 20_000);
    ws.close();
  });
});

describe("threads from before the object was their store", () => {
  async function legacyThread(
    texts = [
      ["msg_old1", "user", "first question", "cid-old-1"],
      ["msg_old2", "assistant", "first answer", null],
      ["msg_old3", "user", "second question", null],
      ["msg_old4", "assistant", "second answer", null],
    ],
  ) {
    const id = await insertThread({ ownerId: "local", name: "from D1" });
    const now = Date.now() - 10_000;
    const rows = texts.map(([mid, role, content, cid], i) =>
      env.DB.prepare("INSERT INTO messages (id, thread_id, role, kind, source, content, metadata, client_message_id, created_at) VALUES (?, ?, ?, 'text', 'web', ?, '{}', ?, ?)")
        .bind(`${mid}_${id}`, id, role, content, cid, now + i),
    );
    await env.DB.batch(rows);
    return id;
  }

  it("loads from D1 once, on first touch, as one branch", async () => {
    const id = await legacyThread();
    const { messages } = await messagesOf(id);
    expect(messages.map((m) => [m.role, m.content, m.parentId])).toEqual([
      ["user", "first question", null],
      ["assistant", "first answer", `msg_old1_${id}`],
      ["user", "second question", `msg_old1_${id}`],
      ["assistant", "second answer", `msg_old3_${id}`],
    ]);
    const { thread } = await (await api(`/api/threads/${id}`)).json<any>();
    expect(thread).toMatchObject({ name: "from D1", headId: `msg_old3_${id}` });
  });

  it("answers the next message of one with more exchanges than SQLite binds parameters (100)", async () => {
    const texts = Array.from({ length: 120 }, (_, i) => [
      [`msg_q${i}`, "user", `question ${i}`, null],
      [`msg_a${i}`, "assistant", `answer ${i}`, null],
    ]).flat();
    const id = await legacyThread(texts);
    const ws = await Socket.open(id);
    expect((await post(id, "and the next one?")).status).toBe(202);
    const [end] = (await ws.waitForRunEnd(1)).filter((f) => f.event === "pipeline:complete" || f.event === "pipeline:error");
    expect(end.event).toBe("pipeline:complete");
    const latest = (await messagesOf(id, "?kinds=text")).messages;
    expect(latest.slice(-3).map((m: any) => [m.role, m.content === "and the next one?"])).toEqual([["assistant", false], ["user", true], ["assistant", false]]);
    expect(latest.at(-3).content).toBe("answer 119");
    ws.close();
  });

  it("answers a clientMessageId D1 already had as a duplicate, and runs nothing", async () => {
    const id = await legacyThread();
    const again = await post(id, "first question", "cid-old-1");
    expect(again.status).toBe(200);
    expect((await again.json<any>()).message.id).toBe(`msg_old1_${id}`);
    expect(await inRoom(id, (room) => room.activity())).toEqual({ running: false, queued: 0 });
  });
});

describe("step 0's cached inputs", () => {
  /** Writes a file in the user's object without its push to the threads: a change no thread is told of. */
  const putDirect = async (path: string, content: string) => {
    await userObject("local").contextFiles();
    await runInDurableObject(userObject("local"), (room: UserRoom) => void room.parts.context.put(path, content, { files: 1_000, bytes: 1 << 24 }));
  };
  /** Makes the object's copy of step 0's inputs `ageMs` old, as if read that long ago. */
  const age = (threadId: string, ageMs: number) =>
    inRoom(threadId, (room) => {
      (room.parts.stepZero as any).cached.fetchedAt = Date.now() - ageMs;
    });

  it("a change through the API applies from the next run (the active thread's object is told)", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const m = marker();
    await post(thread.id, `first ${m}`);
    await ws.waitForRunEnd(1);
    const path = `notes/pushed-${crypto.randomUUID().slice(0, 8)}.md`;
    expect((await api(`/api/context/${path}`, { method: "PUT", body: { content: "PUSHED-NOTE" } })).status).toBe(200);
    await post(thread.id, `second ${m}`);
    await ws.waitForRunEnd(2);
    const [first, second] = await upstreamRequests(m);
    expect(systemText(first.body)).not.toContain("PUSHED-NOTE");
    expect(systemText(second.body)).toContain("PUSHED-NOTE");
    await api(`/api/context/${path}`, { method: "DELETE" });
    ws.close();
  });

  it("a change the object was not told of: revalidated after a run once past STEP0_FRESH_MS, read first past STEP0_MAX_AGE_MS", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const m = marker();
    await post(thread.id, `warm ${m}`);
    await ws.waitForRunEnd(1);
    const path = `notes/quiet-${crypto.randomUUID().slice(0, 8)}.md`;
    await putDirect(path, "QUIET-NOTE");
    // Fresh: used as is.
    await post(thread.id, `fresh ${m}`);
    await ws.waitForRunEnd(2);
    // Older than STEP0_FRESH_MS (5 s): this run uses it, and its flush reads it again.
    await age(thread.id, 6_000);
    await post(thread.id, `stale ${m}`);
    await ws.waitForRunEnd(3);
    await until(() => inRoom(thread.id, (room) => room.parts.stepZero.current!.contextFiles.some((f) => f.path === path)), Boolean);
    await post(thread.id, `revalidated ${m}`);
    await ws.waitForRunEnd(4);
    // Older than STEP0_MAX_AGE_MS (10 min): read again before the run.
    await putDirect(path, "QUIET-NOTE-2");
    await age(thread.id, 11 * 60_000);
    await post(thread.id, `too old ${m}`);
    await ws.waitForRunEnd(5);
    const texts = (await upstreamRequests(m)).map((r) => systemText(r.body));
    expect(texts.map((t) => (t.includes("QUIET-NOTE-2") ? 2 : t.includes("QUIET-NOTE") ? 1 : 0))).toEqual([0, 0, 0, 1, 2]);
    await api(`/api/context/${path}`, { method: "DELETE" });
    ws.close();
  });
});
