// Test helpers: the Worker as a client sees it, sockets, and the fake Messages API's control API.
import { env, listDurableObjectIds, runInDurableObject, SELF } from "cloudflare:test";
import type { ThreadRoom } from "../worker/thread/room";
import type { UserRoom } from "../worker/user/room";
import { fakeControl } from "./fake-upstream/control.mjs";

export { systemText } from "./fake-upstream/control.mjs";
import type { Step } from "./fake-upstream/server.mjs";

export { env };

export interface ApiOptions {
  method?: string;
  /** JSON, unless a string or bytes; with a body and no method, a POST. */
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
}

/** A request to the app, as a client sends one (https://app.test, a bearer token when given). */
export function appRequest(path: string, opts: ApiOptions = {}): Request {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.body !== undefined && !headers["content-type"]) headers["content-type"] = "application/json";
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const { body } = opts;
  return new Request(`https://app.test${path}`, {
    method: opts.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body: body === undefined ? undefined : typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
}

/** The deployed Worker, as a client reaches it. */
export const api = (path: string, opts: ApiOptions = {}): Promise<Response> => SELF.fetch(appRequest(path, opts));

export async function json<T = any>(res: Response | Promise<Response>): Promise<T> {
  return (await res).json() as Promise<T>;
}

/**
 * A thread with a name, so the titles plugin leaves it alone (an unnamed thread is titled by a model
 * call after its first run, which tests of other things do not expect). Pass `name: undefined` for one.
 */
export async function createThread(body: Record<string, unknown> = {}, token?: string) {
  const res = await api("/api/threads", { body: { name: "test thread", ...body }, token });
  if (res.status !== 201) throw new Error(`create thread: ${res.status} ${await res.text()}`);
  return (await res.json<{ thread: any }>()).thread;
}

/**
 * Waits until no thread object of this file (made by createThread, by a route as another user, by a
 * delegation: each test file has storage of its own) is running, has work queued or a run's
 * housekeeping to do, so a test ends with nothing left running in the background.
 */
export async function settle(timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const id of await listDurableObjectIds(env.THREAD_ROOM)) {
    for (;;) {
      if (!(await runInDurableObject(env.THREAD_ROOM.get(id), (r: ThreadRoom) => r.busy()))) break;
      if (Date.now() > deadline) throw new Error(`thread object ${id} still busy after ${timeoutMs}ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** A unique marker: put it in a message and the fake upstream plays the script registered for it. */
export function marker(label = "t"): string {
  return `[[${label}-${crypto.randomUUID()}]]`;
}

/** The fake Messages API the app calls in these tests (test/global-setup.ts starts it). */
export const upstream = fakeControl(env.ANTHROPIC_BASE_URL!);

export const script = (match: string, responses: Step[]): Promise<void> => upstream.script(match, responses);

export const upstreamRequests = (match: string) => upstream.requests(match);

export interface Frame {
  event: string;
  data: any;
  timestamp: number;
  seq?: number;
}

/** A WebSocket to a thread that records every frame it gets. */
export class Socket {
  readonly frames: Frame[] = [];
  closed = false;
  private waiters: (() => void)[] = [];

  constructor(readonly ws: WebSocket) {
    ws.addEventListener("message", (e) => {
      this.frames.push(JSON.parse(e.data as string));
      this.waiters.forEach((w) => w());
    });
    ws.addEventListener("close", () => {
      this.closed = true;
      this.waiters.forEach((w) => w());
    });
  }

  static async open(threadId: string, query = "", token?: string): Promise<Socket> {
    const res = await SELF.fetch(`https://app.test/api/threads/${threadId}/ws${query}`, {
      headers: { upgrade: "websocket", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
    if (!res.webSocket) throw new Error(`no websocket: ${res.status} ${await res.text()}`);
    res.webSocket.accept();
    return new Socket(res.webSocket);
  }

  events(name?: string): Frame[] {
    return this.frames.filter((f) => f.seq !== undefined && (!name || f.event === name));
  }

  send(value: unknown) {
    this.ws.send(typeof value === "string" ? value : JSON.stringify(value));
  }

  async waitFor(pred: (frames: Frame[]) => boolean, timeoutMs = 10_000, what = "frames"): Promise<Frame[]> {
    const deadline = Date.now() + timeoutMs;
    while (!pred(this.frames)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; got ${this.frames.map((f) => f.event).join(", ")}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
      this.waiters = [];
    }
    return this.frames;
  }

  /** Waits for the run's last event (pipeline:complete or pipeline:error), `count` runs in all. */
  waitForRunEnd(count = 1, timeoutMs = 10_000) {
    return this.waitFor(
      (f) => f.filter((x) => x.event === "pipeline:complete" || x.event === "pipeline:error").length >= count,
      timeoutMs,
      "end of run",
    );
  }

  close() {
    try {
      this.ws.close(1000, "done");
    } catch {}
  }
}

/**
 * A moment past the replay's checkpoint (worker/thread/store/replay.ts: a delta waits at most a second
 * for its batch): what a client saw of a stream so far is stored, and a restart now keeps it whole.
 */
export const checkpointed = () => new Promise((resolve) => setTimeout(resolve, 1_100));

/** The text deltas a socket has received, joined: what the user has seen of the answers so far. */
export function streamedText(frames: Frame[]): string {
  return frames
    .filter((f) => f.event === "pipeline:stream" && f.data.type === "text")
    .map((f) => f.data.delta)
    .join("");
}

export async function messagesOf(threadId: string, query = "", token?: string) {
  return json<{ messages: any[]; lastSeq: number }>(api(`/api/threads/${threadId}/messages${query}`, { token }));
}

export async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs}ms: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A thread's object, for the test to reach inside (runInDurableObject) or call. */
export function threadObject(threadId: string): DurableObjectStub<ThreadRoom> {
  const threads = env.THREAD_ROOM as DurableObjectNamespace<ThreadRoom>;
  return threads.get(threads.idFromName(threadId));
}

/** Rows of a thread's own store (its primary copy) matching `where`; 0 for an object that holds nothing. */
export function roomRows(threadId: string, table: string, where = "1", ...binds: unknown[]): Promise<number> {
  return runInDurableObject(threadObject(threadId), (_room, state) => {
    const sql = state.storage.sql;
    if (!sql.exec("SELECT 1 FROM sqlite_master WHERE name = ?", table).toArray().length) return 0;
    return sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, ...binds).one().n;
  });
}

/** The owner a thread's object holds it for (null: it holds no thread). */
export function ownerOf(threadId: string): Promise<string | null> {
  return runInDurableObject(threadObject(threadId), (room: ThreadRoom) => room.parts.store.thread.get()?.ownerId ?? null);
}

/** A run of `userId`'s that cost `costUsd`, reported to their object as a thread reports one (a thread since deleted). */
export async function reportRun(userId: string, costUsd: number, startedAt = Date.now()): Promise<void> {
  const row = { id: `run_${crypto.randomUUID()}`, threadId: "thr_gone", ownerId: userId, model: "claude-sonnet-4-6", costUsd, status: "completed", startedAt };
  await userObject(userId).report([{ table: "agent_runs", row }]);
}

/** A user's object (their directory, search, usage, files, tasks), for the test to read what it holds. */
export function userObject(userId: string): DurableObjectStub<UserRoom> {
  const users = env.USER_ROOM as DurableObjectNamespace<UserRoom>;
  return users.get(users.idFromName(userId));
}

/**
 * The longest value a thread's object stores, in any column of any table: Cloudflare's SQLite refuses
 * a string or a row over 2 MB (workerd here does not), so tests hold what is stored under it.
 */
export async function longestStored(threadId: string): Promise<{ at: string; length: number }> {
  return runInDurableObject(threadObject(threadId), (_room, state) => {
    const sql = state.storage.sql;
    let longest = { at: "", length: 0 };
    const tables = sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'").toArray();
    for (const { name } of tables) {
      for (const { name: column } of sql.exec<{ name: string }>("SELECT name FROM pragma_table_info(?)", name).toArray()) {
        const { length } = sql.exec<{ length: number | null }>(`SELECT max(length("${column}")) AS length FROM "${name}"`).one();
        if ((length ?? 0) > longest.length) longest = { at: `${name}.${column}`, length: length! };
      }
    }
    return longest;
  });
}
