// Test helpers: the Worker as a client sees it, sockets, and the fake Messages API's control API.
import { env, runInDurableObject, SELF } from "cloudflare:test";
import type { ThreadRoom } from "../worker/thread/room";
import type { Step } from "./fake-upstream/server.mjs";

export { env };
import type { UserRoom } from "../worker/user/room";

export interface ApiOptions {
  method?: string;
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
}

export async function api(path: string, opts: ApiOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.body !== undefined && !headers["content-type"]) headers["content-type"] = "application/json";
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  return SELF.fetch(`https://app.test${path}`, {
    method: opts.method ?? (opts.body === undefined ? "GET" : "POST"),
    headers,
    body: opts.body === undefined ? undefined : typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body),
  });
}

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
  const { thread } = await res.json<{ thread: any }>();
  created.add(thread.id);
  return thread;
}

const created = new Set<string>();

/**
 * Waits until no thread made by this file (nor its task threads) is running or has work queued, so a
 * test ends with nothing left running in the background.
 */
export async function settle(timeoutMs = 15_000): Promise<void> {
  const ids = new Set(created);
  const rows = await env.DB.prepare("SELECT thread_id FROM tasks").all<{ thread_id: string }>();
  for (const r of rows.results) ids.add(r.thread_id);
  const deadline = Date.now() + timeoutMs;
  for (const id of ids) {
    const room = env.THREAD_ROOM.get(env.THREAD_ROOM.idFromName(id));
    for (;;) {
      const state = await runInDurableObject(room, (r: ThreadRoom) => r.activity());
      if (!state.running && state.queued === 0) break;
      if (Date.now() > deadline) throw new Error(`thread ${id} still busy after ${timeoutMs}ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** A unique marker: put it in a message and the fake upstream plays the script registered for it. */
export function marker(label = "t"): string {
  return `[[${label}-${crypto.randomUUID()}]]`;
}

const upstream = () => env.ANTHROPIC_BASE_URL!;

export async function script(match: string, responses: Step[]): Promise<void> {
  const res = await fetch(`${upstream()}/_control/scripts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ match, responses }),
  });
  if (res.status !== 204) throw new Error(`script: ${res.status}`);
}

export async function upstreamRequests(match: string): Promise<{ headers: Record<string, string>; body: any; receivedAt: number }[]> {
  const res = await fetch(`${upstream()}/_control/requests?match=${encodeURIComponent(match)}`);
  return ((await res.json()) as { requests: any[] }).requests;
}

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
  return runInDurableObject(env.THREAD_ROOM.get(env.THREAD_ROOM.idFromName(threadId)), (_room: ThreadRoom, state) => {
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
