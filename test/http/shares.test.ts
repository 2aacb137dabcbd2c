// Share links (PROTOCOL.md, "Share links"): a snapshot of the branch, read without signing in through
// the share's own routes (its files too), with no user id in it; revoked at once, and with its thread.
import { afterEach, describe, expect, it } from "vitest";
import { runInDurableObject } from "cloudflare:test";
import { marker, script, settle, userObject } from "../helpers";
import { callApp, env, expectError, openSocketVia, tokenUsers } from "./util";
import { DOT_PNG } from "../images";

afterEach(() => settle());


async function sharedThread() {
  const { users, as, tokenEnv } = tokenUsers("sharer");
  const call = as(users.sharer);
  const thread = (await (await call("/api/threads", { body: { name: "Trip plan" } })).json<any>()).thread;
  const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.sharer.token}` });
  const upload = await call(`/api/threads/${thread.id}/attachments?name=map.png`, { body: DOT_PNG as any, headers: { "content-type": "image/png" } });
  const { attachment } = await upload.json<any>();
  const m = marker("share");
  await script(m, [
    // The owner's notes, which a share must not show.
    { kind: "tool_use", tools: [{ name: "memory", input: { command: "view", path: "/memories" }, id: "toolu_share_mem" }] },
    { kind: "tool_use", tools: [{ name: "artifacts__create", input: { title: "Itinerary", type: "markdown", content: "# Day 1" }, id: "toolu_share_art" }] },
    { kind: "text", text: "Here is the plan." },
  ]);
  expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `plan it ${m}`, attachments: [attachment.id] } })).status).toBe(202);
  await ws.waitForRunEnd(1);
  const anonymous = (path: string) => callApp(tokenEnv, path, { headers: { "cf-connecting-ip": "203.0.113.9" } });
  return { users, call, thread, ws, attachment, anonymous, tokenEnv };
}

describe("share links", () => {
  it("copy the branch as it is now; anyone with the link reads it without signing in, and no user id is in it", async () => {
    const { users, call, thread, ws, attachment, anonymous } = await sharedThread();
    const made = await call(`/api/threads/${thread.id}/shares`, { method: "POST" });
    expect(made.status).toBe(201);
    const { share } = await made.json<any>();
    expect(share.id).toMatch(/^[0-9a-f]{40}$/);
    expect(share).toMatchObject({ threadId: thread.id, url: expect.stringMatching(new RegExp(`/s/${share.id}$`)) });

    // Later messages are not in the copy.
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: "a later message" } })).status).toBe(202);
    await ws.waitForRunEnd(2);

    const res = await anonymous(`/api/shared/${share.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-robots-tag")).toBe("noindex");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    const text = await res.text();
    expect(text).not.toContain(users.sharer.id);
    expect(text).not.toContain(users.sharer.token);
    const shared = JSON.parse(text);
    expect(shared.share).toEqual({ id: share.id, createdAt: share.createdAt });
    expect(shared.thread).toEqual({ name: "Trip plan" });
    const kinds = shared.messages.map((x: any) => `${x.role}:${x.kind}`);
    expect(kinds).toContain("user:text");
    expect(kinds).toContain("assistant:tool_call");
    expect(kinds).toContain("assistant:text");
    expect(kinds).not.toContain("assistant:pipeline_step");
    expect(shared.messages.map((x: any) => x.content)).not.toContain("a later message");
    expect(shared.artifacts).toEqual([expect.objectContaining({ title: "Itinerary", content: "# Day 1", version: 1 })]);

    // Its file, through the share's own route: the bytes the owner sent.
    const file = await anonymous(`/api/shared/${share.id}/files/${attachment.id}`);
    expect(file.status).toBe(200);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(DOT_PNG);
    expect(file.headers.get("content-type")).toBe("image/png");
    // The owner's attachment URL is no way in for a reader.
    expect((await anonymous(`/api/threads/${thread.id}/attachments/${attachment.id}`)).status).toBe(401);

    expect((await (await call("/api/shares")).json<any>()).shares.map((s: any) => s.id)).toEqual([share.id]);
    // No message names the owner's thread; the memory tool's calls are not copied.
    expect(text).not.toContain(thread.id);
    expect(shared.messages.filter((x: any) => x.metadata.toolName === "memory")).toEqual([]);
    expect(shared.messages.filter((x: any) => x.metadata.toolName === "artifacts__create")).toHaveLength(2);
    // The page: the web app, 200 while the share is there.
    const page = await anonymous(`/s/${share.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("x-robots-tag")).toBe("noindex");
    await page.arrayBuffer();
    ws.close();
  });

  it("a revoked link, and a deleted thread's, is 404 at once, its files too; an unknown or malformed id is 404 in the error shape", async () => {
    const { users, call, thread, ws, attachment, anonymous, tokenEnv } = await sharedThread();
    const first = (await (await call(`/api/threads/${thread.id}/shares`, { method: "POST" })).json<any>()).share;
    const second = (await (await call(`/api/threads/${thread.id}/shares`, { method: "POST" })).json<any>()).share;
    expect((await call(`/api/shares/${first.id}`, { method: "DELETE" })).status).toBe(204);
    await expectError(await anonymous(`/api/shared/${first.id}`), 404, "not_found");
    await expectError(await anonymous(`/api/shared/${first.id}/files/${attachment.id}`), 404, "not_found");
    expect((await call(`/api/shares/${first.id}`, { method: "DELETE" })).status).toBe(404);
    const gonePage = await anonymous(`/s/${first.id}`);
    expect(gonePage.status).toBe(404);
    expect(gonePage.headers.get("x-robots-tag")).toBe("noindex");
    expect((await gonePage.text()).length).toBeGreaterThan(0);
    // A reload asks with the page's etag: still the whole page (the app says the link is gone), 404.
    const live = await anonymous(`/s/${second.id}`);
    const etag = live.headers.get("etag");
    await live.arrayBuffer();
    const reload = await callApp(tokenEnv, `/s/${first.id}`, { headers: { "cf-connecting-ip": "203.0.113.9", ...(etag ? { "if-none-match": etag } : {}) } });
    expect(reload.status).toBe(404);
    expect((await reload.text()).length).toBeGreaterThan(0);
    expect(await env.FILES.get(`shares/${first.id}/${attachment.id}`)).toBeNull();
    expect((await anonymous(`/api/shared/${second.id}`)).status).toBe(200);

    ws.close();
    expect((await call(`/api/threads/${thread.id}`, { method: "DELETE" })).status).toBe(204);
    await expectError(await anonymous(`/api/shared/${second.id}`), 404, "not_found");
    expect(await env.FILES.get(`shares/${second.id}/${attachment.id}`)).toBeNull();
    expect((await (await call("/api/shares")).json<any>()).shares).toEqual([]);

    // Well-formed ids no one made (of either form), and ids that cannot be one.
    const forged = ["0".repeat(40), `${ownerObjectId(users.sharer.id)}${"0".repeat(32)}`];
    for (const id of [...forged, "nope", "f".repeat(96), `${"a".repeat(64)}../x`]) await expectError(await anonymous(`/api/shared/${encodeURIComponent(id)}`), 404, "not_found");
  });

  it("another user can neither share, list nor revoke the owner's", async () => {
    const { thread, ws, call } = await sharedThread();
    const share = (await (await call(`/api/threads/${thread.id}/shares`, { method: "POST" })).json<any>()).share;
    const { users, as } = tokenUsers("stranger");
    const stranger = as(users.stranger);
    expect((await stranger(`/api/threads/${thread.id}/shares`, { method: "POST" })).status).toBe(404);
    expect((await (await stranger("/api/shares")).json<any>()).shares).toEqual([]);
    expect((await stranger(`/api/shares/${share.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await (await call("/api/shares")).json<any>()).shares).toHaveLength(1);
    ws.close();
  });

  it("views never reach the owner's object: with it unreachable, the link, its page and its files answer; revoked, they are 404 at once", async () => {
    const { call, thread, ws, attachment, tokenEnv } = await sharedThread();
    const share = (await (await call(`/api/threads/${thread.id}/shares`, { method: "POST" })).json<any>()).share;
    const ownerAway = { ...tokenEnv, USER_ROOM: unreachable() };
    const view = (path: string, e = ownerAway) => callApp(e, path, { headers: { "cf-connecting-ip": "203.0.113.10" } });
    for (let i = 0; i < 20; i++) expect((await view(`/api/shared/${share.id}`)).status).toBe(200);
    expect((await view(`/s/${share.id}`)).status).toBe(200);
    const file = await view(`/api/shared/${share.id}/files/${attachment.id}`);
    expect(file.status).toBe(200);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(DOT_PNG);
    // This data center holds the body now; revoking is still seen at the next view.
    expect((await call(`/api/shares/${share.id}`, { method: "DELETE" })).status).toBe(204);
    await expectError(await view(`/api/shared/${share.id}`), 404, "not_found");
    expect((await view(`/s/${share.id}`)).status).toBe(404);
    await expectError(await view(`/api/shared/${share.id}/files/${attachment.id}`), 404, "not_found");
    ws.close();
  });

  it("a share made before its readers' copy is read from its owner's object once, which writes the copy", async () => {
    const { users, call, thread, ws, tokenEnv } = await sharedThread();
    // Such a share has the older id (its owner's object's, then 128 random bits) and its snapshot in its owner's object.
    const share = { id: `${ownerObjectId(users.sharer.id)}${"ab".repeat(16)}` };
    const snapshot = { thread: { name: "Trip plan" }, messages: [], artifacts: [] };
    await runInDurableObject(userObject(users.sharer.id), (_user, state) => {
      state.storage.sql.exec("INSERT INTO shares (id, thread_id, created_at, snapshot, files) VALUES (?, ?, ?, ?, '[]')", share.id, thread.id, Date.now(), JSON.stringify(snapshot));
    });
    expect((await (await call("/api/shares")).json<any>()).shares.map((s: any) => s.id)).toContain(share.id);
    const view = (e: typeof tokenEnv) => callApp(e, `/api/shared/${share.id}`, { headers: { "cf-connecting-ip": "203.0.113.11" } });
    await expectError(await view({ ...tokenEnv, USER_ROOM: unreachable() }), 503, "unavailable");
    const first = await view(tokenEnv);
    expect(first.status).toBe(200);
    expect((await first.json<any>()).thread).toEqual({ name: "Trip plan" });
    expect(await env.FILES.head(`shares/${share.id}/share.json`)).not.toBeNull();
    expect((await view({ ...tokenEnv, USER_ROOM: unreachable() })).status).toBe(200);
    ws.close();
  });
});

/** The id of a user's object, which began their shares' ids before the readers' copies. */
const ownerObjectId = (userId: string) => env.USER_ROOM.idFromName(userId).toString();

/** A USER_ROOM whose objects cannot be reached: a route that asked one would fail. */
function unreachable(): DurableObjectNamespace {
  const away = () => Promise.reject(new Error("the owner's object is away"));
  return new Proxy(env.USER_ROOM, {
    get: (target, name) => {
      if (name === "get") return () => new Proxy({}, { get: () => away });
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as DurableObjectNamespace;
}
