// POST /api/prewarm loads what a first post needs (the thread, the model's view, step 0's inputs and
// the plugins), so the post that follows reaches the model without waiting on D1.
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ThreadRoom } from "../../worker/thread/room";
import { api, createThread, marker, script, settle, Socket, threadObject, until } from "../helpers";

afterEach(async () => {
  await settle();
  vi.restoreAllMocks();
});


/** A thread with one exchange whose object is then cold, its step-0 inputs too old to use. */
async function coldThread() {
  const thread = await createThread();
  const ws = await Socket.open(thread.id);
  await api(`/api/threads/${thread.id}/messages`, { body: { content: "warm up" } });
  await ws.waitForRunEnd();
  ws.close();
  await settle();
  await runInDurableObject(threadObject(thread.id), (r: ThreadRoom) => {
    const store = r.parts.store;
    const held = store.cache.get("step0")!;
    store.cache.put("step0", held.value, Date.now() - 11 * 60_000);
  });
  await abortAllDurableObjects();
  return thread;
}

/** Posts, and answers what the run waited on before its model request (its log line): D1, other objects and R2. */
async function beforeModel(threadId: string): Promise<{ d1: number; calls: number }> {
  const lines: string[] = [];
  const log = console.log;
  const spy = vi.spyOn(console, "log").mockImplementation((...args) => {
    lines.push(args.map(String).join(" "));
    log(...args);
  });
  const ws = await Socket.open(threadId);
  const m = marker("after");
  await script(m, [{ kind: "text", text: "answered" }]);
  await api(`/api/threads/${threadId}/messages`, { body: { content: m } });
  await ws.waitForRunEnd(1);
  ws.close();
  const runId = ws.events("pipeline:start")[0].data.runId;
  // The run's log line follows its end events by a turn (worker/thread/run/queue.ts).
  const finishedLine = () => lines.map((l) => (l.startsWith("{") ? JSON.parse(l) : null)).find((l) => l?.message === "run finished" && l.runId === runId);
  const finished = (await until(async () => finishedLine(), Boolean)) as { d1BeforeModel: number; callsBeforeModel: number };
  spy.mockRestore();
  return { d1: finished.d1BeforeModel, calls: finished.callsBeforeModel };
}

describe("prewarm", () => {
  it("without it, a cold thread's first post asks step 0's sources (the configs' copy, the owner's object) before the model, and never D1", async () => {
    const thread = await coldThread();
    const waited = await beforeModel(thread.id);
    expect(waited.d1).toBe(0);
    expect(waited.calls).toBeGreaterThanOrEqual(2);
  });

  it("loads the thread, its view, step 0's inputs and the plugins, so the first post waits on nothing but the spend cap", async () => {
    const thread = await coldThread();
    const res = await api("/api/prewarm", { body: { threadId: thread.id } });
    expect(res.status).toBe(204);
    const loaded = await runInDurableObject(threadObject(thread.id), (r: ThreadRoom) => {
      const p = r.parts;
      return { view: (p.view as any).held?.last ?? null, head: p.store.thread.get()!.headId, stepZero: p.stepZero.current !== null, started: (p.plugins as any).started !== null };
    });
    expect(loaded).toEqual({ view: loaded.head, head: expect.any(String), stepZero: true, started: true });
    // The one call left is the run's reservation with the owner's object: the test bindings set a
    // daily cap, and while one is set no copy of the spend can answer for it.
    expect(await beforeModel(thread.id)).toEqual({ d1: 0, calls: 1 });
  });

  it("answers 404 for a thread that is not the caller's, and 400 without a threadId", async () => {
    expect((await api("/api/prewarm", { body: { threadId: "thr_nobody" } })).status).toBe(404);
    expect((await api("/api/prewarm", { body: {} })).status).toBe(400);
  });
});
