// /api/threads: create (defaults, strict validation), list (order, paging, filters), get, patch
// (and its thread:updated broadcast), delete (and the cascade through the objects and D1's directory).
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createThread, env, json, marker, roomRows, script, settle, Socket, threadObject, until, userObject } from "../helpers";
import { countRows, createThreadVia, expectError, expectInvalid, listThread, setLastActivity, tokenUsers } from "./util";

const THREAD_KEYS = ["createdAt", "headId", "id", "instructions", "kind", "lastActivity", "model", "name", "parentThreadId", "projectId", "sessionId", "status"];

/** A fresh token-mode user whose list holds only what the test puts there. */
function freshUser() {
  const { users, as } = tokenUsers("lister");
  const call = as(users.lister);
  return {
    id: users.lister.id,
    call,
    list: async (query = "") => {
      const res = await call(`/api/threads${query}`);
      expect(res.status, await res.clone().text()).toBe(200);
      return res.json<{ threads: any[]; nextCursor?: string }>();
    },
  };
}

/** Every page of `query` with `limit`, following nextCursor to the end. */
async function allPages(list: (q: string) => Promise<{ threads: any[]; nextCursor?: string }>, limit: number, query = "") {
  const pages: any[][] = [];
  let cursor: string | undefined;
  do {
    const page = await list(`?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    pages.push(page.threads);
    cursor = page.nextCursor;
    if (pages.length > 100) throw new Error("paging does not end");
  } while (cursor);
  return pages;
}

const ids = (threads: any[]) => threads.map((t) => t.id);

/** The order PROTOCOL.md promises: newest lastActivity first (ties by id, newest first). */
function sortedNewestFirst(threads: any[]) {
  return [...threads].sort((a, b) => b.lastActivity - a.lastActivity || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

describe("POST /api/threads", () => {
  it("creates a thread with the documented defaults", async () => {
    const before = Date.now();
    const res = await api("/api/threads", { body: {} });
    expect(res.status).toBe(201);
    const { thread } = await res.json<any>();
    expect(Object.keys(thread).sort()).toEqual(THREAD_KEYS);
    expect(thread).toMatchObject({
      name: "New thread",
      kind: "general",
      status: "open",
      model: env.DEFAULT_MODEL,
      sessionId: null,
      parentThreadId: null,
    });
    expect(thread.id).toMatch(/^thr_[0-9a-z]+$/);
    expect(thread.createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(thread.lastActivity).toBe(thread.createdAt);
  });

  it("takes name, kind and model, and trims the name", async () => {
    const thread = await createThread({ name: "  Planning  ", kind: "primary", model: "claude-haiku-4-5" });
    expect(thread).toMatchObject({ name: "Planning", kind: "primary", model: "claude-haiku-4-5", status: "open" });
  });

  it.each(["general", "primary", "task", "cron"])("accepts kind %s", async (kind) => {
    expect((await createThread({ kind })).kind).toBe(kind);
  });

  it.each([
    ["an unknown kind", { kind: "chat" }, "kind"],
    ["a kind in the wrong case", { kind: "General" }, "kind"],
    ["an empty name", { name: "" }, "name"],
    ["a blank name", { name: "   " }, "name"],
    ["a name over 200 characters", { name: "n".repeat(201) }, "name"],
    ["a non-string name", { name: 7 }, "name"],
    ["a model with spaces", { model: "claude sonnet" }, "model"],
    ["an empty model", { model: "" }, "model"],
  ])("refuses %s → 400 naming the field", async (_label, body, path) => {
    await expectInvalid(await api("/api/threads", { body }), path);
  });

  it.each([
    ["an unknown field", { name: "x", color: "red" }, "color"],
    ["a status (it is not settable on create)", { status: "archived" }, "status"],
    ["an owner (never from the client)", { ownerId: "someone-else" }, "ownerId"],
    ["a parent thread", { parentThreadId: "thr_x" }, "parentThreadId"],
  ])("refuses %s: bodies are strict", async (_label, body, key) => {
    const error = await expectInvalid(await api("/api/threads", { body }), "");
    expect(error.issues!.find((i) => i.code === "unrecognized_keys")!.message).toContain(key);
  });

  it("stores nothing when it refuses", async () => {
    const name = `refused-${crypto.randomUUID()}`;
    await expectInvalid(await api("/api/threads", { body: { name, kind: "nope" } }), "kind");
    expect((await json(api("/api/threads?limit=200"))).threads.map((t: any) => t.name)).not.toContain(name);
  });

  it("gives every thread its own sortable id", async () => {
    const a = await createThread();
    const b = await createThread();
    expect(a.id).not.toBe(b.id);
    expect(a.id <= b.id || a.createdAt === b.createdAt).toBe(true);
  });
});

describe("GET /api/threads", () => {
  it("lists newest lastActivity first", async () => {
    const user = freshUser();
    const [a, b, c] = [await createThreadVia(user.call, { name: "a" }), await createThreadVia(user.call, { name: "b" }), await createThreadVia(user.call, { name: "c" })];
    const t0 = Date.now() - 60_000;
    await setLastActivity(a.id, t0 + 1);
    await setLastActivity(b.id, t0 + 3);
    await setLastActivity(c.id, t0 + 2);
    const { threads, nextCursor } = await user.list();
    expect(ids(threads)).toEqual([b.id, c.id, a.id]);
    expect(threads.map((t) => t.lastActivity)).toEqual([t0 + 3, t0 + 2, t0 + 1]);
    expect(nextCursor).toBeUndefined();
  });

  it("moves a thread to the top when a message is posted to it", async () => {
    const user = freshUser();
    const a = await createThreadVia(user.call, { name: "a" });
    const b = await createThreadVia(user.call, { name: "b" });
    const t0 = Date.now() - 60_000;
    await setLastActivity(a.id, t0);
    await setLastActivity(b.id, t0 + 1);
    expect(ids((await user.list()).threads)).toEqual([b.id, a.id]);
    const posted = await user.call(`/api/threads/${a.id}/messages`, { body: { content: "bump" } });
    expect(posted.status).toBe(202);
    // The list is the owner's object's, which hears of the post with the run's report: at most one behind.
    const { threads } = await until(() => user.list(), (page) => page.threads[0]?.id === a.id);
    expect(ids(threads)).toEqual([a.id, b.id]);
    expect(threads[0].lastActivity).toBeGreaterThan(t0 + 1);
  });

  it("pages with limit and cursor: no duplicates, no gaps, ties broken stably", async () => {
    const user = freshUser();
    const base = Date.now() - 100_000;
    // Three threads share one lastActivity: the cursor must not lose or repeat any of them.
    for (const offset of [100, 200, 200, 200, 300, 400, 500]) await listThread({ ownerId: user.id, lastActivity: base + offset });
    const everything = (await user.list("?limit=200")).threads;
    expect(everything).toHaveLength(7);
    expect(ids(everything)).toEqual(ids(sortedNewestFirst(everything)));

    const pages = await allPages(user.list, 3);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    const paged = ids(pages.flat());
    expect(new Set(paged).size).toBe(paged.length);
    expect(paged).toEqual(ids(everything));

    const onePerPage = await allPages(user.list, 1);
    expect(onePerPage).toHaveLength(7);
    expect(ids(onePerPage.flat())).toEqual(ids(everything));
  });

  it("has no nextCursor when the last page ends exactly at the last thread", async () => {
    const user = freshUser();
    for (let i = 0; i < 4; i++) await listThread({ ownerId: user.id, lastActivity: Date.now() - 1000 + i });
    const first = await user.list("?limit=2");
    expect(first.threads).toHaveLength(2);
    expect(typeof first.nextCursor).toBe("string");
    const second = await user.list(`?limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(second.threads).toHaveLength(2);
    expect(second).not.toHaveProperty("nextCursor");
    const whole = await user.list("?limit=4");
    expect(whole.threads).toHaveLength(4);
    expect(whole).not.toHaveProperty("nextCursor");
  });

  it("keeps paging consistent when a thread is created between pages", async () => {
    const user = freshUser();
    const base = Date.now() - 100_000;
    for (let i = 0; i < 5; i++) await listThread({ ownerId: user.id, lastActivity: base + i * 10 });
    const everything = ids((await user.list()).threads);
    const first = await user.list("?limit=2");
    await createThreadVia(user.call, { name: "newcomer" }); // newest of all: belongs before page 1
    let rest: any[] = [];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await user.list(`?limit=2&cursor=${encodeURIComponent(cursor)}`);
      rest = rest.concat(page.threads);
      cursor = page.nextCursor;
    }
    expect([...ids(first.threads), ...ids(rest)]).toEqual(everything);
  });

  it("defaults to 50 a page and allows up to 200", async () => {
    const user = freshUser();
    const base = Date.now() - 100_000;
    for (let i = 0; i < 51; i++) await listThread({ ownerId: user.id, name: `bulk ${i}`, lastActivity: base + i });
    const first = await user.list();
    expect(first.threads).toHaveLength(50);
    expect(first.nextCursor).toBeTruthy();
    const second = await user.list(`?cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(second.threads).toHaveLength(1);
    expect(second.threads[0].name).toBe("bulk 0");
    expect(second.nextCursor).toBeUndefined();
    expect((await user.list("?limit=200")).threads).toHaveLength(51);
  });

  it.each(["0", "-1", "201", "abc", "1.5"])("refuses limit=%s → 400", async (limit) => {
    await expectInvalid(await api(`/api/threads?limit=${limit}`), "limit");
  });

  it.each(["!!!", btoa("garbage"), btoa("123:"), btoa("notanumber:thr_x")])("refuses the cursor %s → 400", async (cursor) => {
    const error = await expectError(await api(`/api/threads?cursor=${encodeURIComponent(cursor)}`), 400, "invalid_request");
    expect(error.message).toMatch(/cursor/i);
  });

  it("filters by status, and hides archived threads unless asked for", async () => {
    const user = freshUser();
    const open = await createThreadVia(user.call, { name: "open" });
    const completed = await createThreadVia(user.call, { name: "completed" });
    const failed = await createThreadVia(user.call, { name: "failed" });
    const archived = await createThreadVia(user.call, { name: "archived" });
    for (const [t, status] of [[completed, "completed"], [failed, "failed"], [archived, "archived"]] as const) {
      const res = await user.call(`/api/threads/${t.id}`, { method: "PATCH", body: { status } });
      expect(res.status).toBe(200);
    }
    const byStatus = async (status: string) => ids((await user.list(`?status=${status}`)).threads);
    expect(await byStatus("open")).toEqual([open.id]);
    expect(await byStatus("completed")).toEqual([completed.id]);
    expect(await byStatus("failed")).toEqual([failed.id]);
    expect(await byStatus("archived")).toEqual([archived.id]);
    expect(await byStatus("active")).toEqual([]);

    const all = ids((await user.list()).threads);
    expect(all.sort()).toEqual([open.id, completed.id, failed.id].sort());
    expect(all).not.toContain(archived.id);

    // Unarchived, it is listed again.
    await user.call(`/api/threads/${archived.id}`, { method: "PATCH", body: { status: "open" } });
    expect(ids((await user.list()).threads)).toContain(archived.id);
    expect(await byStatus("archived")).toEqual([]);
  });

  it("pages within a status filter", async () => {
    const user = freshUser();
    const base = Date.now() - 100_000;
    for (let i = 0; i < 5; i++) await listThread({ ownerId: user.id, status: i % 2 ? "archived" : "open", lastActivity: base + i });
    const pages = await allPages(user.list, 1, "&status=archived");
    expect(pages.map((p) => p.length)).toEqual([1, 1]);
    expect(pages.flat().every((t) => t.status === "archived")).toBe(true);
    const open = await allPages(user.list, 2);
    expect(open.flat().map((t) => t.status)).toEqual(["open", "open", "open"]);
  });

  it("refuses an unknown status → 400", async () => {
    await expectInvalid(await api("/api/threads?status=deleted"), "status");
  });
});

describe("GET /api/threads/:id", () => {
  it("answers the thread as created", async () => {
    const thread = await createThread({ name: "get me", kind: "task" });
    const res = await api(`/api/threads/${thread.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ thread });
  });

  it("answers 404 for an unknown id", async () => {
    await expectError(await api("/api/threads/thr_nothinghere"), 404, "not_found");
  });
});

describe("PATCH /api/threads/:id", () => {
  it("changes the name, the model and the status, one at a time or together", async () => {
    const thread = await createThread({ name: "before" });
    const patch = async (body: unknown) => {
      const res = await api(`/api/threads/${thread.id}`, { method: "PATCH", body });
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json<any>()).thread;
    };
    expect(await patch({ name: "  after  " })).toMatchObject({ id: thread.id, name: "after", model: thread.model, status: "open" });
    expect(await patch({ model: "claude-opus-4-5" })).toMatchObject({ name: "after", model: "claude-opus-4-5" });
    expect(await patch({ status: "completed" })).toMatchObject({ status: "completed" });
    const all = await patch({ name: "all three", model: "claude-haiku-4-5", status: "archived" });
    expect(all).toMatchObject({ name: "all three", model: "claude-haiku-4-5", status: "archived", kind: thread.kind, createdAt: thread.createdAt });
    expect(Object.keys(all).sort()).toEqual(THREAD_KEYS);
    expect((await json(api(`/api/threads/${thread.id}`))).thread).toEqual(all);
  });

  it("refuses an empty patch → 400, and a missing body too", async () => {
    const thread = await createThread();
    await expectError(await api(`/api/threads/${thread.id}`, { method: "PATCH", body: {} }), 400, "invalid_request");
    await expectError(await api(`/api/threads/${thread.id}`, { method: "PATCH" }), 400, "invalid_request");
  });

  it.each([
    [{ status: "deleted" }, "status"],
    [{ name: "" }, "name"],
    [{ model: "no spaces allowed" }, "model"],
    [{ kind: "task" }, ""], // kind is fixed at creation
    [{ name: "x", sessionId: "s" }, ""],
  ])("refuses %j → 400 naming %j", async (body, path) => {
    const thread = await createThread({ name: "unchanged" });
    await expectInvalid(await api(`/api/threads/${thread.id}`, { method: "PATCH", body }), path);
    expect((await json(api(`/api/threads/${thread.id}`))).thread).toEqual(thread);
  });

  it("answers 404 for an unknown thread", async () => {
    await expectError(await api("/api/threads/thr_nope", { method: "PATCH", body: { name: "x" } }), 404, "not_found");
  });

  it("broadcasts thread:updated { threadId, thread } to open sockets, one seq per patch", async () => {
    const thread = await createThread({ name: "watched" });
    const ws = await Socket.open(thread.id);
    const [ready] = await ws.waitFor((f) => f.some((x) => x.event === "ready"));
    expect(ready.seq).toBeUndefined();
    const start = ready.data.lastSeq as number;

    // A refused patch broadcasts nothing and uses no seq.
    await expectInvalid(await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { status: "nope" } }), "status");

    const first = (await json(api(`/api/threads/${thread.id}`, { method: "PATCH", body: { name: "renamed" } }))).thread;
    const second = (await json(api(`/api/threads/${thread.id}`, { method: "PATCH", body: { status: "completed" } }))).thread;
    await ws.waitFor((f) => f.filter((x) => x.event === "thread:updated").length >= 2);
    const updates = ws.events("thread:updated");
    expect(updates).toHaveLength(2);
    expect(updates.map((u) => u.seq)).toEqual([start + 1, start + 2]);
    expect(updates[0].data).toEqual({ threadId: thread.id, thread: first });
    expect(updates[1].data).toEqual({ threadId: thread.id, thread: second });
    expect(updates[1].data.thread).toMatchObject({ name: "renamed", status: "completed" });
    for (const u of updates) expect(typeof u.timestamp).toBe("number");
    expect(ws.frames.filter((f) => f.event === "error")).toEqual([]);
    ws.close();
  });

  it("replays thread:updated to a socket that connects later with ?since=", async () => {
    const thread = await createThread({ name: "replayed" });
    const patched = (await json(api(`/api/threads/${thread.id}`, { method: "PATCH", body: { name: "while away" } }))).thread;
    const ws = await Socket.open(thread.id, "?since=0");
    await ws.waitFor((f) => f.some((x) => x.event === "thread:updated"));
    expect(ws.frames[0].event).toBe("ready");
    expect(ws.events("thread:updated")[0]).toMatchObject({ seq: 1, data: { threadId: thread.id, thread: patched } });
    ws.close();
  });
});

describe("DELETE /api/threads/:id", () => {
  it("answers 204 with no body; the thread is gone from every route", async () => {
    const thread = await createThread({ name: "doomed" });
    const res = await api(`/api/threads/${thread.id}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    await expectError(await api(`/api/threads/${thread.id}`), 404, "not_found");
    await expectError(await api(`/api/threads/${thread.id}/messages`), 404, "not_found");
    await expectError(await api(`/api/threads/${thread.id}/messages`, { body: { content: "anyone?" } }), 404, "not_found");
    await expectError(await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { name: "x" } }), 404, "not_found");
    await expectError(await api(`/api/threads/${thread.id}`, { method: "DELETE" }), 404, "not_found");
    const list = await json(api("/api/threads?limit=200"));
    expect(ids(list.threads)).not.toContain(thread.id);
    await settle();
    expect(await countRows("thread_directory", "id = ?", thread.id)).toBe(0);
  });

  it("cascades: task threads below it and their tasks leave the list, the objects and D1's directory; usage stays", async () => {
    const thread = await createThread({ name: "parent" });
    const ws = await Socket.open(thread.id);
    expect((await api(`/api/threads/${thread.id}/messages`, { body: { content: "make some rows" } })).status).toBe(202);
    await ws.waitForRunEnd();
    const runs = async () => (await json(api(`/api/metrics?threadId=${thread.id}`))).totals.runs;
    await until(runs, (n) => n === 1);
    // Task threads below it, as delegation makes them: in the owner's directory, each with its task.
    const child = await listThread({ ownerId: "local", kind: "task", parentThreadId: thread.id, name: "child" });
    const grandchild = await listThread({ ownerId: "local", kind: "task", parentThreadId: child, name: "grandchild" });
    const now = Date.now();
    const task = { id: `task_${now}`, ownerId: "local", threadId: child, parentThreadId: thread.id, status: "running" as const, prompt: "do it", result: null, model: null, depth: 1, maxIterations: 3, currentIteration: 1, costUsd: 0, verdict: null, createdAt: now, updatedAt: now };
    expect(await userObject("local").createTask(task, { perThread: 10, perDay: 1_000 })).toEqual({ ok: true });
    const family = [thread.id, child, grandchild];
    await until(() => countRows("thread_directory", "id = ?", thread.id), (n) => n === 1);

    expect((await api(`/api/threads/${thread.id}`, { method: "DELETE" })).status).toBe(204);

    const listed = ids((await json(api("/api/threads?limit=200"))).threads);
    for (const id of family) expect(listed).not.toContain(id);
    expect((await json(api(`/api/tasks?threadId=${child}`))).tasks).toEqual([]);
    expect(await roomRows(thread.id, "messages")).toBe(0);
    const inFamily = `IN (${family.map(() => "?").join(",")})`;
    await until(() => countRows("thread_directory", `id ${inFamily}`, ...family), (n) => n === 0);
    // What the thread cost stays on the books (the usage page shows it as a deleted thread's).
    expect(await runs()).toBe(1);
    await expectError(await api(`/api/threads/${child}`), 404, "not_found");
    ws.close();
  });

  it("closes the thread's sockets and clears its object's state, leaving only a tombstone", async () => {
    const thread = await createThread({ name: "resident" });
    const ws = await Socket.open(thread.id);
    expect((await api(`/api/threads/${thread.id}/messages`, { body: { content: "fill the room", clientMessageId: "cid-1" } })).status).toBe(202);
    await ws.waitForRunEnd();
    const full = await roomRowCounts(thread.id);
    expect(full).toMatchObject({ thread: 1, turns: 2 });
    expect(full.replay).toBeGreaterThan(0);
    expect(full.messages).toBeGreaterThan(2);

    expect((await api(`/api/threads/${thread.id}`, { method: "DELETE" })).status).toBe(204);
    await ws.waitFor(() => ws.closed, 5000, "the socket to close");
    expect(ws.closed).toBe(true);
    expect(await roomRowCounts(thread.id)).toEqual(EMPTY_ROOM);
    expect(await roomAlarm(thread.id)).toBeNull();
    await expectError(await api(`/api/threads/${thread.id}`), 404, "not_found");
  });

  /** A thread mid-answer (the fake model hangs after some text), then DELETE; resolves once the socket closed. */
  async function deleteMidRun() {
    const m = marker("delete-mid-run");
    await script(m, [{ kind: "hang", afterText: "partial answer that should not survive" }]);
    const thread = await createThread({ name: "busy" });
    const ws = await Socket.open(thread.id);
    expect((await api(`/api/threads/${thread.id}/messages`, { body: { content: `hang here ${m}` } })).status).toBe(202);
    await ws.waitFor((f) => f.some((x) => x.event === "pipeline:stream"), 10_000, "the stream to start");
    expect((await api(`/api/threads/${thread.id}`, { method: "DELETE" })).status).toBe(204);
    await ws.waitFor(() => ws.closed, 5000, "the socket to close");
    // DELETE answers once the object let the aborted run unwind and its last flush settle.
    return thread;
  }

  it("deleting during a run stops it, and nothing of the thread is left in D1 or the list", async () => {
    const thread = await deleteMidRun();
    await settle();
    expect(await countRows("thread_directory", "id = ?", thread.id)).toBe(0);
    expect(await roomRows(thread.id, "messages")).toBe(0);
    expect(ids((await json(api("/api/threads?limit=200"))).threads)).not.toContain(thread.id);
  });

  it("deleting during a run leaves the thread's object empty", async () => {
    const thread = await deleteMidRun();
    expect(await roomRowCounts(thread.id)).toEqual(EMPTY_ROOM);
    expect(await roomAlarm(thread.id)).toBeNull();
  });
});

// --- the thread's Durable Object, inspected in place ----------------------------------------

const ROOM_TABLES = ["thread", "messages", "inbox", "runs", "replay", "turns", "outbox", "cache"];
/** A deleted thread's object: every table empty; `meta` keeps only the schema version and the tombstone. */
const EMPTY_ROOM = Object.fromEntries(ROOM_TABLES.map((t) => [t, 0]));

async function roomRowCounts(threadId: string) {
  return runInDurableObject(threadObject(threadId), (_instance, state) => {
    const counts: Record<string, number> = {};
    const meta = state.storage.sql.exec<{ key: string }>("SELECT key FROM meta ORDER BY key").toArray().map((r) => r.key);
    if (meta.includes("deleted")) expect(meta).toEqual(["deleted", "schema"]);
    for (const table of ROOM_TABLES) {
      const exists = state.storage.sql.exec("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?", table).one().n;
      counts[table] = exists ? (state.storage.sql.exec(`SELECT count(*) AS n FROM ${table}`).one().n as number) : 0;
    }
    return counts;
  });
}

async function roomAlarm(threadId: string) {
  return runInDurableObject(threadObject(threadId), (_instance, state) => state.storage.getAlarm());
}
