// A thread id the app could not have made is an unknown thread, answered by the Worker itself: each
// name is an object of its own, so asking the namespace for a made-up one would make an object.
import { listDurableObjectIds, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { isId, newId } from "../../worker/lib/ids";
import { callApp, env, expectError } from "./util";
import type { ApiOptions } from "../helpers";

/** The test env, with a THREAD_ROOM that notes each call the Worker makes on the namespace. */
function watchedEnv() {
  const calls: string[] = [];
  const THREAD_ROOM = new Proxy(env.THREAD_ROOM, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.push(String(prop));
        return value.apply(target, args);
      };
    },
  });
  return { appEnv: { ...env, THREAD_ROOM }, calls };
}

const MALFORMED = ["nope", "thr_x", `thr_${"a".repeat(18)}`, `thr_${"a".repeat(20)}`, `thr_${"A".repeat(19)}`, `msg_${"a".repeat(19)}`, `thr_${"a".repeat(18)}-`];

/** Every route that names a thread, by its path's `:id` or its body's `threadId`. */
const routes = (id: string): [string, ApiOptions][] => [
  [`/api/threads/${id}`, {}],
  [`/api/threads/${id}`, { method: "PATCH", body: { name: "renamed" } }],
  [`/api/threads/${id}`, { method: "DELETE" }],
  [`/api/threads/${id}/messages`, {}],
  [`/api/threads/${id}/messages`, { body: { content: "hello" } }],
  [`/api/threads/${id}/messages/msg_x/edit`, { body: { content: "hello" } }],
  [`/api/threads/${id}/messages/msg_x/regenerate`, { body: {} }],
  [`/api/threads/${id}/head`, { method: "PUT", body: { messageId: "msg_x" } }],
  [`/api/threads/${id}/stop`, { method: "POST" }],
  [`/api/threads/${id}/ws`, { headers: { upgrade: "websocket" } }],
  [`/api/threads/${id}/export`, {}],
  [`/api/threads/${id}/attachments?name=a.txt`, { body: "some text", headers: { "content-type": "text/plain" } }],
  [`/api/threads/${id}/attachments/att_x`, {}],
  ["/api/chat", { body: { threadId: id, content: "hello" } }],
  ["/api/ws-ticket", { body: { threadId: id } }],
  ["/api/prewarm", { body: { threadId: id } }],
];

/** A route of routes("") for `id`: its path's `:id`, or its body's threadId. */
function withId([path, opts]: [string, ApiOptions], id: string): [string, ApiOptions] {
  const body = opts.body && typeof opts.body === "object" && "threadId" in opts.body ? { ...opts.body, threadId: id } : opts.body;
  return [path.replace("/api/threads//", `/api/threads/${id}/`).replace(/\/api\/threads\/$/, `/api/threads/${id}`), { ...opts, body }];
}

describe("thread ids", () => {
  it("isId takes what newId makes, and nothing else", () => {
    expect(isId("thr", newId("thr"))).toBe(true);
    for (const id of MALFORMED) expect(isId("thr", id), id).toBe(false);
  });

  it("a malformed id is 404 in the error shape on every route, and the Worker never asks the namespace", async () => {
    const { appEnv, calls } = watchedEnv();
    for (const id of MALFORMED) {
      for (const [path, opts] of routes(id)) {
        const res = await callApp(appEnv, path, opts);
        const error = await expectError(res, 404, "not_found");
        expect(error.message, `${opts.method ?? "GET/POST"} ${path}`).toBe("Thread not found");
      }
    }
    expect(calls).toEqual([]);
  });

  it("a well-formed unknown id still goes to its object, and answers the same", async () => {
    const { appEnv, calls } = watchedEnv();
    const missing = await expectError(await callApp(appEnv, `/api/threads/${newId("thr")}`), 404, "not_found");
    expect(calls).toContain("get");
    const malformed = await expectError(await callApp(appEnv, "/api/threads/thr_x"), 404, "not_found");
    expect(malformed).toEqual(missing);
  });

  it("no object is made for a malformed id", async () => {
    const id = `thr_${"z".repeat(18)}`;
    const objectId = env.THREAD_ROOM.idFromName(id).toString();
    await expectError(await SELF.fetch(`https://app.test/api/threads/${id}/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"content":"hi"}' }), 404, "not_found");
    const made = (await listDurableObjectIds(env.THREAD_ROOM)).map((i) => i.toString());
    expect(made).not.toContain(objectId);
  });

  it("1,000 requests for well-formed unknown ids, on every route, leave no object storage behind", async () => {
    const before = new Set((await listDurableObjectIds(env.THREAD_ROOM)).map((i) => i.toString()));
    const ids = Array.from({ length: 1_000 }, () => newId("thr"));
    const all = routes("");
    for (let i = 0; i < ids.length; i += 50) {
      const answers = await Promise.all(ids.slice(i, i + 50).map((id, j) => callApp(env, ...withId(all[(i + j) % all.length], id))));
      for (const res of answers) expect(res.status).toBe(404);
    }
    // Each object they reached holds nothing: no table, no row, no alarm. (Local workerd keeps an empty
    // file for every object it ran; Cloudflare keeps nothing for an object that never wrote.)
    const reached = (await listDurableObjectIds(env.THREAD_ROOM)).filter((id) => !before.has(id.toString()));
    expect(reached.length).toBeLessThanOrEqual(ids.length);
    for (const id of reached) {
      const held = await runInDurableObject(env.THREAD_ROOM.get(id), async (_room, state) => ({
        tables: state.storage.sql.exec("SELECT name FROM sqlite_master").toArray().length,
        alarm: await state.storage.getAlarm(),
      }));
      expect(held).toEqual({ tables: 0, alarm: null });
    }
  });

  it("an empty threadId in a body is still a 400 naming it", async () => {
    const res = await callApp(env, "/api/prewarm", { body: { threadId: "" } });
    const error = await expectError(res, 400, "invalid_request");
    expect(error.issues!.map((i) => i.path)).toContain("threadId");
  });
});
