// The thread's object as its primary store: D1 off the hot path, its directory row caught up after an
// outage, ownership answered by the object, the queue bound, idempotency that cannot be lost.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ThreadRoom } from "../../worker/thread/room";
import type { UserRoom } from "../../worker/user/room";
import { roomStub } from "../../worker/thread/room-stub";
import { api, createThread, env, marker, messagesOf, script, settle, Socket, systemText, threadObject, until, upstreamRequests, userObject } from "../helpers";
import { countRows, createThreadVia, openSocketVia, tokenUsers } from "../http/util";

/** The name D1's directory holds for a thread (null: no row). */
const directoryName = async (id: string) => (await env.DB.prepare("SELECT name FROM thread_directory WHERE id = ?").bind(id).first<{ name: string }>())?.name ?? null;

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
  it("a warm thread's run makes no D1 round trip at all: its directory row moved by less than a grain", async () => {
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
      expect(finished.mirror.rows).toBe(0);
      expect(finished.d1RoundTrips + finished.mirror.d1RoundTrips).toBe(0);
      expect(finished.cost).toMatchObject({ d1Rows: 0, d1Bytes: 0 });
    } finally {
      log.restore();
      ws.close();
    }
  });

  it("a new thread's first run reads step 0's inputs without D1: the configs' copy and the owner's object, at once (with the cap's reservation)", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const log = logLines();
    try {
      await post(thread.id, "cold");
      await ws.waitForRunEnd(1);
      const runId = ws.events("pipeline:start")[0].data.runId;
      const finished: any = await until(async () => log.lines.find((l) => l.message === "run finished" && l.runId === runId), Boolean);
      expect(finished.d1BeforeModel).toBe(0);
      // The configs' copy, the owner's run inputs, and the spend reservation (the test bindings set a cap).
      expect(finished.callsBeforeModel).toBe(3);
    } finally {
      log.restore();
      ws.close();
    }
  });

  it("goes on while D1 is down; once it is back, D1's directory has the thread as it is, and the day's usage whole", async () => {
    const { users, as, tokenEnv } = tokenUsers("outage");
    const call = as(users.outage);
    const thread = await createThreadVia(call, { name: "before the outage" });
    await until(() => directoryName(thread.id), (n) => n === "before the outage");
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.outage.token}` });
    await faults(thread.id, { down: true });
    for (const content of ["one", "two", "three"]) expect((await call(`/api/threads/${thread.id}/messages`, { body: { content } })).status).toBe(202);
    await ws.waitForRunEnd(3);
    expect(ws.events("pipeline:complete")).toHaveLength(3);
    expect((await call(`/api/threads/${thread.id}`, { method: "PATCH", body: { name: "renamed while D1 was down" } })).status).toBe(200);
    // The object and the owner's object answer for themselves; D1 has the old name yet.
    expect((await (await call(`/api/threads/${thread.id}/messages?kinds=text`)).json<any>()).messages).toHaveLength(6);
    expect(await directoryName(thread.id)).toBe("before the outage");

    await faults(thread.id, { down: false });
    await runDurableObjectAlarm(threadObject(thread.id));
    expect(await until(() => directoryName(thread.id), (n) => n === "renamed while D1 was down", 15_000)).toBe("renamed while D1 was down");
    // The owner's roll-up of the day: every run, once, as their object counts them.
    await runDurableObjectAlarm(userObject(users.outage.id));
    const today = new Date().toISOString().slice(0, 10);
    const day = await env.DB.prepare("SELECT runs, cost_usd FROM usage_days WHERE owner_id = ? AND day = ?").bind(users.outage.id, today).first<any>();
    const totals = (await (await call("/api/metrics")).json<any>()).totals;
    expect(day.runs).toBe(3);
    expect(day.cost_usd).toBeCloseTo(totals.costUsd, 6);
    ws.close();
  });

  it("a restart in the middle of a flush loses nothing: the new instance flushes what waited", async () => {
    const thread = await createThread({ name: "flushed slowly" });
    await until(() => directoryName(thread.id), (n) => n === "flushed slowly");
    await faults(thread.id, { delayMs: 400 });
    expect((await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { name: "renamed mid-flush" } })).status).toBe(200);
    // The rename's flush is waiting on D1 now; the object restarts under it.
    await new Promise((r) => setTimeout(r, 100));
    await runInDurableObject(threadObject(thread.id), (_room, state) => state.abort("restart mid-flush")).catch(() => {});
    // The next touch starts the new instance, which finds the outbox and has the alarm flush it.
    expect((await api(`/api/threads/${thread.id}`)).status).toBe(200);
    await runDurableObjectAlarm(threadObject(thread.id));
    expect(await until(() => directoryName(thread.id), (n) => n === "renamed mid-flush", 15_000)).toBe("renamed mid-flush");
    expect(await countRows("thread_directory", "id = ?", thread.id)).toBe(1);
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

describe("step 0's cached inputs", () => {
  /** Writes a file in the user's object, its version moved, without its push to the threads: a change no thread is told of. */
  const putDirect = async (path: string, content: string) => {
    await userObject("local").contextFiles();
    await runInDurableObject(userObject("local"), (room: UserRoom) => {
      room.parts.context.put(path, content, { files: 1_000, bytes: 1 << 24 });
      room.parts.runInputs.changed();
    });
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
    // Older than STEP0_FRESH_MS (5 s): this run uses it, and after it the object asks whether the version moved.
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
