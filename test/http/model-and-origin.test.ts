// (a) PATCH /api/threads/:id to a well-formed model the deployment does not offer (not in the Models
// API's catalog, or left out by MODELS) is a 400 in the protocol's error shape, and changes nothing.
// (b) AUTH_MODE none (the tests' deployment): a state-changing request whose Origin is another site
// is refused (worker/http/auth.ts, checkOrigin), while no Origin or our own is taken.
import { afterEach, describe, expect, it } from "vitest";
import { api, createThread, env, json, roomRows, settle, Socket } from "../helpers";
import { callApp, expectError, expectInvalid } from "./util";

afterEach(() => settle());

describe("PATCH /api/threads/:id to a model the deployment does not offer", () => {
  it("answers 400 naming `model` for a well-formed id that is not in the catalog, and leaves the thread as it was", async () => {
    const thread = await createThread({ name: "keeps its model" });
    const ws = await Socket.open(thread.id);
    await ws.waitFor((f) => f.some((x) => x.event === "ready"));
    const { lastSeq } = ws.frames.find((f) => f.event === "ready")!.data;

    for (const model of ["claude-opus-4-1", "claude-sonnet-4-6-fake", "gpt-4o"]) {
      const error = await expectInvalid(await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { model } }), "model");
      expect(error.message).toContain(model);
      expect(error.issues).toEqual([{ path: "model", message: expect.stringContaining("claude-sonnet-4-6"), code: "invalid_value" }]);
    }
    // Together with a valid field: the whole patch is refused, the name too.
    await expectInvalid(await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { name: "renamed", model: "claude-opus-4-1" } }), "model");

    expect((await json(api(`/api/threads/${thread.id}`))).thread).toEqual(thread);
    expect(await roomRows(thread.id, "thread", "model = ? AND name = ?", thread.model, "keeps its model")).toBe(1);
    // Nothing was broadcast: a refused patch uses no seq.
    const check = await Socket.open(thread.id);
    await check.waitFor((f) => f.some((x) => x.event === "ready"));
    expect(check.frames.find((f) => f.event === "ready")!.data.lastSeq).toBe(lastSeq);
    expect(ws.events("thread:updated")).toHaveLength(0);
    check.close();
    ws.close();

    // A model that is offered is taken (the refusal above is the catalog's, not the field's form).
    const res = await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { model: "claude-haiku-4-5" } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await res.json<any>()).thread.model).toBe("claude-haiku-4-5");
  });

  it("refuses a catalog model that MODELS leaves out of the deployment", async () => {
    const narrow = { ...env, MODELS: "claude-sonnet-4-6,claude-haiku-4-5" };
    const thread = await createThread({ name: "narrow" });
    const error = await expectInvalid(await callApp(narrow, `/api/threads/${thread.id}`, { method: "PATCH", body: { model: "claude-opus-4-5" } }), "model");
    expect(error.issues![0].message).toBe("not one of claude-sonnet-4-6, claude-haiku-4-5");
    expect((await json(api(`/api/threads/${thread.id}`))).thread).toEqual(thread);
    const ok = await callApp(narrow, `/api/threads/${thread.id}`, { method: "PATCH", body: { model: "claude-haiku-4-5" } });
    expect(ok.status, await ok.clone().text()).toBe(200);
  });
});

describe("AUTH_MODE none: requests from another site", () => {
  const named = (label: string) => `origin-${label}-${crypto.randomUUID().slice(0, 8)}`;
  /** The names in the user's thread list (their object's directory). */
  const listedNames = async () => (await json(api("/api/threads?limit=200"))).threads.map((t: any) => t.name);

  it("is the tests' deployment", async () => {
    expect(env.AUTH_MODE ?? "none").toBe("none");
    expect((await json(api("/api/health"))).auth).toMatchObject({ mode: "none", userId: "local" });
  });

  it("refuses POST /api/threads with another site's Origin (403 forbidden) and creates nothing", async () => {
    for (const origin of ["https://evil.test", "http://app.test", "https://app.test:8443", "https://sub.app.test", "null"]) {
      const name = named("evil");
      const res = await api("/api/threads", { body: { name }, headers: { origin } });
      const error = await expectError(res, 403, "forbidden");
      expect(error.message).toBe("Requests from another site are refused");
      expect(await listedNames()).not.toContain(name);
    }
  });

  it("takes the same request with no Origin, or with our own", async () => {
    const bare = named("bare");
    const res = await api("/api/threads", { body: { name: bare } });
    expect(res.status, await res.clone().text()).toBe(201);
    const same = named("same");
    const ours = await api("/api/threads", { body: { name: same }, headers: { origin: "https://app.test" } });
    expect(ours.status, await ours.clone().text()).toBe(201);
    expect(await listedNames()).toEqual(expect.arrayContaining([bare, same]));
  });

  it("refuses other changes and a socket from another site, and lets it read", async () => {
    const thread = await createThread({ name: "target" });
    const evil = { origin: "https://evil.test" };
    await expectError(await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { name: "hijacked" }, headers: evil }), 403, "forbidden");
    await expectError(await api(`/api/threads/${thread.id}/messages`, { body: { content: "from elsewhere" }, headers: evil }), 403, "forbidden");
    await expectError(await api(`/api/threads/${thread.id}`, { method: "DELETE", headers: evil }), 403, "forbidden");
    await expectError(await api(`/api/threads/${thread.id}/ws`, { headers: { ...evil, upgrade: "websocket" } }), 403, "forbidden");
    // Nothing changed, nothing was posted.
    expect((await json(api(`/api/threads/${thread.id}`))).thread).toEqual(thread);
    expect(await roomRows(thread.id, "messages")).toBe(0);
    // Reading is not changing.
    const read = await api(`/api/threads/${thread.id}`, { headers: evil });
    expect(read.status).toBe(200);
    expect((await read.json<any>()).thread.name).toBe("target");
  });
});
