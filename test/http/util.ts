// Helpers for the HTTP tests: the real Hono app under other auth modes, error-shape checks, and
// direct D1 access for setup and for checking what was (or was not) stored.
import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import type { ThreadRoom } from "../../worker/thread/room";
import { expect } from "vitest";
import { app } from "../../worker/http/app";
import { type ApiOptions, appRequest, Socket, threadObject, userObject } from "../helpers";

export type Env = typeof env;


/** Calls the real Hono app with `appEnv` (same D1 and Durable Objects, other configuration). */
export async function callApp(appEnv: Env, path: string, opts: ApiOptions = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await app.fetch(appRequest(path, opts), appEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

export interface User {
  id: string;
  token: string;
}

/**
 * Users for token mode, unique to this call (so no other test's threads show up in their lists),
 * and the env that knows their tokens. `call` is the app as that user.
 */
export function tokenUsers<const N extends string>(...names: N[]) {
  const suffix = crypto.randomUUID().slice(0, 8);
  const users = Object.fromEntries(
    names.map((n) => [n, { id: `${n}-${suffix}`, token: `tok-${n}-${suffix}` }]),
  ) as Record<N, User>;
  const tokenEnv: Env = {
    ...env,
    AUTH_MODE: "token",
    AUTH_TOKENS: Object.values<User>(users).map((u) => `${u.token}:${u.id}`).join(","),
  };
  const as = (user: User) => (path: string, opts: Omit<ApiOptions, "token"> = {}) =>
    callApp(tokenEnv, path, { ...opts, token: user.token });
  return { users, tokenEnv, as };
}

/** Creates a thread through the app as `call`'s user. */
export async function createThreadVia(
  call: (path: string, opts?: Omit<ApiOptions, "token">) => Promise<Response>,
  body: Record<string, unknown> = {},
) {
  const res = await call("/api/threads", { body: { name: "test thread", ...body } });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json<{ thread: any }>()).thread;
}

/** Opens a thread's socket through `appEnv`'s app (token mode: `?token=` or a header). */
export async function openSocketVia(appEnv: Env, path: string, headers: Record<string, string> = {}): Promise<Socket> {
  const res = await callApp(appEnv, path, { headers: { upgrade: "websocket", ...headers } });
  if (!res.webSocket) throw new Error(`no websocket: ${res.status} ${await res.text()}`);
  res.webSocket.accept();
  return new Socket(res.webSocket);
}

const STACK_LINE = /\bat\s+\S+\s+\(?\S+:\d+:\d+\)?|\.ts:\d+|\.js:\d+|node_modules|worker\//;

/** No secrets and no internals in a body: the API key's value, stack frames, source paths. */
export function expectNoLeak(text: string) {
  expect(text).not.toContain(env.ANTHROPIC_API_KEY!);
  expect(text).not.toMatch(STACK_LINE);
  expect(text.toLowerCase()).not.toContain("stack");
}

/**
 * Asserts PROTOCOL.md's error shape: the status, `{ error: { code, message } }` (plus `issues` on
 * a 400), nothing else; and that it leaks nothing. Returns the `error` object.
 */
export async function expectError(res: Response, status: number, code: string) {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get("content-type") ?? "").toMatch(/^application\/json/);
  expectNoLeak(text);
  const body = JSON.parse(text);
  expect(Object.keys(body)).toEqual(["error"]);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  expect(body.error.message.length).toBeGreaterThan(0);
  for (const key of Object.keys(body.error)) expect(["code", "message", "issues"]).toContain(key);
  return body.error as { code: string; message: string; issues?: { path: string; message: string; code: string }[] };
}

/** A 400 whose `issues` name `path` (a dotted zod path; "" for the body itself). */
export async function expectInvalid(res: Response, path: string) {
  const error = await expectError(res, 400, "invalid_request");
  expect(Array.isArray(error.issues)).toBe(true);
  expect(error.issues!.map((i) => i.path), JSON.stringify(error.issues)).toContain(path);
  for (const issue of error.issues!) {
    expect(typeof issue.message).toBe("string");
    expect(typeof issue.code).toBe("string");
  }
  return error;
}

// --- D1, directly ------------------------------------------------------------------------------

export async function countRows(table: string, where: string, ...binds: unknown[]): Promise<number> {
  const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)
    .bind(...binds)
    .first<{ n: number }>();
  return row!.n;
}

/**
 * A thread in its owner's list only, as a thread's report puts it there (its own object holds
 * nothing): for tests of the list's order, paging and filters, and of what a delete takes with it.
 */
export async function listThread(row: {
  id?: string;
  ownerId: string;
  name?: string;
  status?: "open" | "completed" | "failed" | "archived";
  kind?: "general" | "task";
  parentThreadId?: string | null;
  lastActivity?: number;
}): Promise<string> {
  const now = Date.now();
  const id = row.id ?? newThreadId(now);
  const thread = { id, ownerId: row.ownerId, source: "web", name: row.name ?? "listed", kind: row.kind ?? "general", status: row.status ?? "open", model: "claude-sonnet-4-6", sessionId: null, instructions: "", headId: null, parentThreadId: row.parentThreadId ?? null, projectId: null, lastActivity: row.lastActivity ?? now, createdAt: now, updatedAt: now };
  await userObject(row.ownerId).report([{ table: "threads", row: thread }]);
  return id;
}

const newThreadId = (now: number) => `thr_${now.toString(36).padStart(9, "0")}${crypto.randomUUID().replace(/-/g, "").slice(0, 10)}`;

/** Moves a thread's last activity (in its object, which reports it to the owner's thread list). */
export async function setLastActivity(threadId: string, lastActivity: number) {
  const room = threadObject(threadId);
  await runInDurableObject(room, async (r: ThreadRoom) => {
    r.parts.writer.updateThread({ lastActivity });
    await r.parts.outflow.reported();
  });
}

export { env };
