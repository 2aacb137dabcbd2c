// Each user their own object: it answers every user route without D1, hears of each run from the
// thread's report, forgets a deleted thread (and takes it out of D1's directory), and its tasks keep a
// delegated run off D1 before its model request. (Its import from D1: test/legacy/users.test.ts.)
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ThreadRoom } from "../../worker/thread/room";
import { marker, script, settle, threadObject, until, upstreamRequests, userObject } from "../helpers";
import { callApp, countRows, createThreadVia, openSocketVia, tokenUsers } from "../http/util";
import { DOT_PNG } from "../images";

afterEach(() => settle());


describe("without D1", () => {
  it("the user's routes answer from their object: list, search, metrics, context, tasks, a file's quota", async () => {
    const { users, tokenEnv } = tokenUsers("nod1");
    const word = marker("nod1word");
    await script(word, [{ kind: "text", text: `answered ${word}` }]);
    const call = (path: string, opts: any = {}, e = tokenEnv) => callApp(e, path, { ...opts, token: users.nod1.token });
    const thread = (await (await call("/api/threads", { body: { name: "before D1 went" } })).json<any>()).thread;
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `hello ${word}` } })).status).toBe(202);
    await until(async () => (await (await call(`/api/search?q=${word}`)).json<any>()).results.length, (n) => n === 2);
    expect((await call("/api/context/a.md", { method: "PUT", body: { content: "note" } })).status).toBe(200);

    // No D1 binding at all in the Worker: a route that touched D1 would fail.
    const noD1 = { ...tokenEnv, DB: undefined as unknown as D1Database };
    const answers = {
      list: await call("/api/threads", {}, noD1),
      search: await call(`/api/search?q=${word}`, {}, noD1),
      metrics: await call("/api/metrics", {}, noD1),
      context: await call("/api/context", {}, noD1),
      file: await call("/api/context/a.md", {}, noD1),
      tasks: await call("/api/tasks", {}, noD1),
      upload: await call(`/api/threads/${thread.id}/attachments`, { body: DOT_PNG as any, headers: { "content-type": "image/png" } }, noD1),
    };
    expect(Object.fromEntries(Object.entries(answers).map(([k, r]) => [k, r.status]))).toEqual({
      list: 200,
      search: 200,
      metrics: 200,
      context: 200,
      file: 200,
      tasks: 200,
      upload: 201,
    });
    expect((await answers.list.json<any>()).threads.map((t: any) => t.name)).toEqual(["before D1 went"]);
    expect((await answers.metrics.json<any>()).totals.runs).toBe(1);
  });

  it("a user's object that cannot import is 503 unavailable, never an empty answer", async () => {
    const { users, tokenEnv } = tokenUsers("unreachable");
    // The user's object cannot be reached at all.
    const broken = { ...tokenEnv, USER_ROOM: { idFromName: () => { throw new Error("no such object"); } } as unknown as DurableObjectNamespace };
    const res = await callApp(broken, "/api/threads", { token: users.unreachable.token });
    expect(res.status).toBe(503);
    expect((await res.json<any>()).error.code).toBe("unavailable");
  });
});

describe("lists longer than a statement binds (SQLite here binds at most 100 parameters)", () => {
  it("forgets a family of 120 threads, their messages with them, and deletes 120 context files at once", async () => {
    const userId = `family-${crypto.randomUUID().slice(0, 8)}`;
    const user = userObject(userId);
    const now = Date.now();
    const ids = Array.from({ length: 120 }, (_, i) => `thr_family${String(i).padStart(3, "0")}`);
    const thread = (id: string, i: number) => ({
      table: "threads" as const,
      row: { id, ownerId: userId, name: `t${i}`, model: "m", parentThreadId: i ? ids[0] : null, lastActivity: now + i, createdAt: now, updatedAt: now },
    });
    const message = (id: string) => ({ table: "messages" as const, row: { id: `msg_${id}`, threadId: id, role: "user", kind: "text", source: "web", content: "findable words", createdAt: now } });
    await user.report([...ids.map(thread), ...ids.map(message)]);
    expect(await user.family(ids[0])).toHaveLength(120);
    await user.forget(ids);
    expect((await user.threads({ limit: 200 })).threads).toEqual([]);
    expect(await user.search("findable", 10)).toEqual([]);

    const quota = { files: 1_000, bytes: 1 << 24 };
    const paths = Array.from({ length: 120 }, (_, i) => `notes/n${i}.md`);
    for (const path of paths) await user.putContextFile(path, "x", quota);
    expect(await user.deleteContextFiles(paths)).toHaveLength(120);
    expect(await user.contextFiles()).toEqual([]);
  });
});

describe("a deleted thread", () => {
  it("leaves the directory and search at once, and D1 after the object's flush", async () => {
    const { users, as } = tokenUsers("deleter");
    const call = as(users.deleter);
    const word = marker("gone");
    await script(word, [{ kind: "text", text: `reply ${word}` }]);
    const thread = (await (await call("/api/threads", { body: { name: "to delete" } })).json<any>()).thread;
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `find ${word}` } })).status).toBe(202);
    await until(async () => (await (await call(`/api/search?q=${word}`)).json<any>()).results.length, (n) => n === 2);
    await until(() => countRows("thread_directory", "id = ?", thread.id), (n) => n === 1);
    expect((await call(`/api/threads/${thread.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await (await call("/api/threads")).json<any>()).threads).toEqual([]);
    expect((await (await call(`/api/search?q=${word}`)).json<any>()).results).toEqual([]);
    await until(() => countRows("thread_directory", "id = ?", thread.id), (n) => n === 0);
    // Its usage stays: it was spent.
    expect((await (await call("/api/metrics")).json<any>()).runs.map((r: any) => r.threadName)).toEqual([null]);
  });
});

describe("a delegated task's run", () => {
  it("reads its task from the owner's object: no D1 round trip before its model request", async () => {
    const { users, as } = tokenUsers("boss");
    const call = as(users.boss);
    const lines: string[] = [];
    const log = console.log;
    const spy = vi.spyOn(console, "log").mockImplementation((...args) => {
      lines.push(args.map(String).join(" "));
      log(...args);
    });
    const [p, c] = [marker("parent"), marker("child")];
    await script(p, [{ kind: "text", text: `On it.\n/delegate do the thing ${c}` }]);
    await script(c, [{ kind: "text", text: "done" }]);
    const parent = (await (await call("/api/threads", { body: {} })).json<any>()).thread;
    expect((await call(`/api/threads/${parent.id}/messages`, { body: { content: `delegate ${p}` } })).status).toBe(202);
    const task = await until(async () => (await (await call("/api/tasks")).json<any>()).tasks[0], (t) => t?.status === "completed", 15_000);
    // A run's log line follows its end events by a moment (worker/thread/run/queue.ts).
    const finishedIn = (threadId: string) =>
      lines.flatMap((l) => (l.startsWith("{") ? [JSON.parse(l)] : [])).filter((l) => l.message === "run finished" && l.threadId === threadId);
    const childRuns = await until(async () => finishedIn(task.threadId), (runs) => runs.length > 0);
    spy.mockRestore();
    // Its thread is new (cold): step 0 asks the configs' copy and the owner's object, never D1; its task comes from the owner's object.
    for (const run of childRuns) expect(run.d1BeforeModel).toBe(0);
  });
});

describe("the reports and the user's mirror", () => {
  it("a report the user's object missed reaches it with the thread's alarm", async () => {
    const { users, as, tokenEnv } = tokenUsers("missedreport");
    const call = as(users.missedreport);
    const thread = await createThreadVia(call);
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.missedreport.token}` });
    const word = marker("late");
    // The answer waits a little: its owner's object goes away once the run has reserved its cost
    // with it (while a spend cap is set, every run does, before its model request).
    await script(word, [{ kind: "text", text: `answer ${word}`, firstByteDelayMs: 300 }]);
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `hello ${marker("warm")}` } })).status).toBe(202);
    await ws.waitForRunEnd(1);
    await settle();
    const room = threadObject(thread.id);
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `ask ${word}` } })).status).toBe(202);
    await until(() => upstreamRequests(word), (r) => r.length === 1);
    await runInDurableObject(room, (r: ThreadRoom) => void (r.faults.user.down = true));
    await ws.waitForRunEnd(2);
    await settle();
    expect((await (await call(`/api/search?q=${word}`)).json<any>()).results).toEqual([]);
    await runInDurableObject(room, (r: ThreadRoom) => void (r.faults.user.down = false));
    // Past the first retry's backoff (1 s), the alarm sends what waits.
    await new Promise((r) => setTimeout(r, 1_100));
    await runDurableObjectAlarm(room);
    expect((await (await call(`/api/search?q=${word}`)).json<any>()).results).toHaveLength(2);
    expect((await (await call("/api/metrics")).json<any>()).totals.runs).toBe(2);
    ws.close();
  });

  it("a context file stays in the user's object: D1 gets nothing of it", async () => {
    const { users, as } = tokenUsers("private");
    const call = as(users.private);
    expect((await call("/api/context/m.md", { method: "PUT", body: { content: "mine alone" } })).status).toBe(200);
    expect((await (await call("/api/context/m.md")).json<any>()).file.content).toBe("mine alone");
    await runDurableObjectAlarm(userObject(users.private.id));
    expect(await countRows("context_files", "owner_id = ?", users.private.id)).toBe(0);
  });
});

describe("today's spend", () => {
  it("counts every run the threads reported, those the ledger holds no row for included (no cap set, a settlement on its way)", async () => {
    const userId = `spender-${crypto.randomUUID().slice(0, 8)}`;
    const user = userObject(userId);
    const now = Date.now();
    const run = (id: string, costUsd: number) => ({
      table: "agent_runs" as const,
      row: { id, threadId: "thr_x", ownerId: userId, model: "claude-sonnet-4-6", costUsd, status: "completed", startedAt: now },
    });
    await user.report([run("run_reported_1", 0.5), run("run_reported_2", 0.25)]);
    expect((await user.spend()).spentUsd).toBe(0.75);
    // A run the ledger settled counts once, at the ledger's figure.
    await user.settle({ runId: "run_reported_2", threadId: "thr_x", at: now }, 0.25);
    await user.reserve({ runId: "run_running", threadId: "thr_x" }, 1, 100);
    expect((await user.spend()).spentUsd).toBe(1.75);
    expect((await user.metrics({ limit: 10 })).spentTodayUsd).toBe(1.75);
  });
});
