// Helpers for the plugin tests: runs through the real Worker, test plugins injected into the
// registry for the threads created while they are in it, users of their own (token mode), and D1.
import { env, runInDurableObject } from "cloudflare:test";
import type { Env } from "../../worker/env";
import type { ThreadRoom } from "../../worker/thread/room";
import { expect } from "vitest";
import { callApp } from "../http/util";
import type { Logger, PluginDefinition } from "../../worker/plugins/contract";
import { PLUGINS } from "../../worker/plugins/registry";
import { api, marker, script, Socket, threadObject, upstreamRequests, type Frame } from "../helpers";

export { env };

export type Call = (path: string, opts?: { method?: string; body?: unknown; headers?: Record<string, string> }) => Promise<Response>;

/** The default user ("local", AUTH_MODE none), through SELF. */
export const asLocal: Call = (path, opts = {}) => api(path, opts);

/**
 * A user of its own (token mode, through the real Hono app with the same D1 and objects): its
 * context files and metrics are seen by nobody else.
 */
export function freshUser(label = "u") {
  const id = `${label}-${crypto.randomUUID().slice(0, 8)}`;
  const token = `tok-${id}`;
  const tokenEnv = { ...env, AUTH_MODE: "token", AUTH_TOKENS: `${token}:${id}` };
  const call: Call = (path, opts = {}) => callApp(tokenEnv, path, { ...opts, token });
  const socket = async (threadId: string) => {
    const res = await call(`/api/threads/${threadId}/ws`, { headers: { upgrade: "websocket" } });
    if (!res.webSocket) throw new Error(`no websocket: ${res.status} ${await res.text()}`);
    res.webSocket.accept();
    return new Socket(res.webSocket);
  };
  return { id, call, socket };
}

/** A named thread (see createThread in ../helpers.ts: unnamed ones are titled after their first run). */
export async function newThread(call: Call = asLocal, body: Record<string, unknown> = {}) {
  const res = await call("/api/threads", { body: { name: "test thread", ...body } });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json<{ thread: any }>()).thread;
}

/** Posts a message and waits until the socket has seen the end of `runs` runs in all; answers the last end. */
export async function runTurn(ws: Socket, threadId: string, content: string, runs = 1, call: Call = asLocal, timeoutMs = 10_000) {
  const res = await call(`/api/threads/${threadId}/messages`, { body: { content } });
  expect(res.status, await res.clone().text()).toBe(202);
  const { message } = await res.json<{ message: any }>();
  await ws.waitForRunEnd(runs, timeoutMs);
  const end = runEnds(ws).pop()!;
  return { message, end };
}

export const runEnds = (ws: Socket): Frame[] =>
  ws.events().filter((f) => f.event === "pipeline:complete" || f.event === "pipeline:error");

/**
 * Puts a plugin into the registry for the duration of `fn`: thread objects constructed meanwhile
 * (a NEW thread's first request) register it. `at` is its position (default: last).
 */
export async function withPlugin<T>(plugin: PluginDefinition<any>, fn: () => Promise<T>, at = PLUGINS.length): Promise<T> {
  PLUGINS.splice(at, 0, plugin);
  try {
    return await fn();
  } finally {
    const i = PLUGINS.indexOf(plugin);
    if (i !== -1) PLUGINS.splice(i, 1);
  }
}

/** A logger that keeps what it is told. */
export function recordingLogger() {
  const entries: { level: "info" | "warn" | "error"; message: string; fields?: Record<string, unknown> }[] = [];
  const logger: Logger = {
    info: (message, fields) => entries.push({ level: "info", message, fields }),
    warn: (message, fields) => entries.push({ level: "warn", message, fields }),
    error: (message, fields) => entries.push({ level: "error", message, fields }),
    with: () => logger,
  };
  return { logger, entries, at: (level: "info" | "warn" | "error") => entries.filter((e) => e.level === level) };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The text of the last user turn of an upstream request. */
export function lastUserText(body: any): string {
  const last = (body.messages as any[]).filter((m) => m.role === "user").pop();
  const blocks = typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
  return blocks.filter((b: any) => b.type === "text").map((b: any) => b.text).join("");
}

export const toolNames = (body: any): string[] => ((body.tools ?? []) as any[]).map((t) => t.name);

/** What the context plugin's prompt sections are joined with. */
export const SEP = "\n\n---\n\n";

/** The stable system block of an upstream request (the plugins' part): its text, and the block itself. */
export function systemOf(body: any): { text: string; block: any } {
  const block = Array.isArray(body.system) ? body.system[0] : undefined;
  return { text: block?.text ?? "", block };
}

export async function setContextSettings(settings: Record<string, unknown>) {
  const res = await api("/api/plugins/context", { method: "PATCH", body: { settings } });
  expect(res.status, await res.clone().text()).toBe(200);
}

/** One run for a fresh user's fresh thread (or `threadId`), answering the upstream request it made. */
export async function oneRun(user: ReturnType<typeof freshUser>, threadId?: string) {
  const id = threadId ?? (await newThread(user.call)).id;
  const m = marker("ctx");
  await script(m, [{ kind: "text", text: "ok" }]);
  const ws = await user.socket(id);
  const { end } = await runTurn(ws, id, `question ${m}`, 1, user.call);
  expect(end.event).toBe("pipeline:complete");
  ws.close();
  const [req] = await upstreamRequests(m);
  return req.body;
}

/** The Analytics Engine data points the thread's object writes from now on (its ANALYTICS binding, a recorder). */
export async function analyticsOf(threadId: string): Promise<AnalyticsEngineDataPoint[]> {
  const points: AnalyticsEngineDataPoint[] = [];
  await runInDurableObject(threadObject(threadId), (room: ThreadRoom) => {
    (room as unknown as { env: Env }).env.ANALYTICS = { writeDataPoint: (p?: AnalyticsEngineDataPoint) => void (p && points.push(p)) };
  });
  return points;
}
