// Auth modes through the real Hono app: token mode (Bearer header; `?token=` for WebSockets only),
// ownership (another user's thread is a 404 with none of its data, on every route), access mode.
import { beforeAll, describe, expect, it } from "vitest";
import { ownerOf, roomRows } from "../helpers";
import { callApp, createThreadVia, env, expectError, openSocketVia, tokenUsers } from "./util";

const { users, tokenEnv, as } = tokenUsers("alice", "bob");
const alice = as(users.alice);
const bob = as(users.bob);

describe("token mode: who is calling", () => {
  it("no token → 401 unauthorized", async () => {
    await expectError(await callApp(tokenEnv, "/api/threads"), 401, "unauthorized");
    await expectError(await callApp(tokenEnv, "/api/threads", { body: { name: "anon" } }), 401, "unauthorized");
  });

  it.each([
    ["an unknown token", "Bearer tok-mallory"],
    ["an empty bearer", "Bearer "],
    ["a prefix of a good token", `Bearer ${users.alice.token.slice(0, -1)}`],
    ["a good token with a suffix", `Bearer ${users.alice.token}x`],
    ["a user id instead of the token", `Bearer ${users.alice.id}`],
    ["another scheme", `Basic ${users.alice.token}`],
    ["the token without a scheme", users.alice.token],
  ])("%s → 401", async (_label, authorization) => {
    await expectError(await callApp(tokenEnv, "/api/threads", { headers: { authorization } }), 401, "unauthorized");
  });

  it("a ?token= query parameter does not authenticate a plain HTTP request", async () => {
    await expectError(await callApp(tokenEnv, `/api/threads?token=${users.alice.token}`), 401, "unauthorized");
  });

  it("no token configured at all → every token is refused", async () => {
    const res = await callApp({ ...tokenEnv, AUTH_TOKENS: undefined }, "/api/threads", { token: users.alice.token });
    await expectError(res, 401, "unauthorized");
  });

  it("a good token works, and the thread is its user's", async () => {
    const thread = await createThreadVia(alice, { name: "alice's first" });
    expect(thread).toMatchObject({ name: "alice's first", status: "open" });
    expect(thread).not.toHaveProperty("ownerId");
    expect(await ownerOf(thread.id)).toBe(users.alice.id);

    const res = await alice(`/api/threads/${thread.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ thread });
  });

  it("the header's scheme is case-insensitive", async () => {
    const res = await callApp(tokenEnv, "/api/threads", { headers: { authorization: `bearer ${users.alice.token}` } });
    expect(res.status).toBe(200);
  });
});

describe("token mode: another user's thread is a 404 with none of its data", () => {
  const secretName = `alice-secret-${crypto.randomUUID()}`;
  let thread: any;
  let message: any;

  beforeAll(async () => {
    thread = await createThreadVia(alice, { name: secretName });
    const res = await alice(`/api/threads/${thread.id}/messages`, { body: { content: "alice's private words", clientMessageId: "c-1" } });
    expect(res.status).toBe(202);
    message = (await res.json<any>()).message;
  });

  /** The 404 must equal the one for a thread that does not exist, and carry nothing of alice's. */
  async function expectHidden(res: Response) {
    const text = await res.clone().text();
    const error = await expectError(res, 404, "not_found");
    for (const secret of [secretName, "alice's private words", message.id, users.alice.id]) expect(text).not.toContain(secret);
    return error;
  }

  it("GET the thread", async () => {
    const hidden = await expectHidden(await bob(`/api/threads/${thread.id}`));
    const missing = await expectError(await bob("/api/threads/thr_doesnotexist000000"), 404, "not_found");
    expect(hidden).toEqual(missing);
  });

  it("PATCH the thread (and nothing changes)", async () => {
    await expectHidden(await bob(`/api/threads/${thread.id}`, { method: "PATCH", body: { name: "bob was here" } }));
    const mine = await (await alice(`/api/threads/${thread.id}`)).json<any>();
    expect(mine.thread.name).toBe(secretName);
  });

  it("DELETE the thread (and it stays)", async () => {
    await expectHidden(await bob(`/api/threads/${thread.id}`, { method: "DELETE" }));
    expect((await alice(`/api/threads/${thread.id}`)).status).toBe(200);
    expect(await roomRows(thread.id, "thread")).toBe(1);
  });

  it("GET its messages", async () => {
    await expectHidden(await bob(`/api/threads/${thread.id}/messages`));
    await expectHidden(await bob(`/api/threads/${thread.id}/messages?before=${message.id}`));
  });

  it("POST a message (and nothing is stored, nothing runs)", async () => {
    const before = await roomRows(thread.id, "messages", "role = 'user'");
    await expectHidden(await bob(`/api/threads/${thread.id}/messages`, { body: { content: "bob's words" } }));
    // Even with alice's clientMessageId, bob learns nothing about her message.
    await expectHidden(await bob(`/api/threads/${thread.id}/messages`, { body: { content: "x", clientMessageId: "c-1" } }));
    expect(await roomRows(thread.id, "messages", "role = 'user'")).toBe(before);
    expect(await roomRows(thread.id, "messages", "content = ?", "bob's words")).toBe(0);
  });

  it("POST stop", async () => {
    await expectHidden(await bob(`/api/threads/${thread.id}/stop`, { method: "POST" }));
  });

  it("POST /api/chat", async () => {
    await expectHidden(await bob("/api/chat", { body: { threadId: thread.id, content: "via chat" } }));
    await expectHidden(await bob("/api/chat", { body: { threadId: thread.id, content: "x", clientMessageId: "c-1" } }));
    expect(await roomRows(thread.id, "messages", "content = ?", "via chat")).toBe(0);
  });

  it("POST /api/prewarm", async () => {
    await expectHidden(await bob("/api/prewarm", { body: { threadId: thread.id } }));
  });

  it("the WebSocket route, by header or by ?token=", async () => {
    const byHeader = await callApp(tokenEnv, `/api/threads/${thread.id}/ws`, {
      token: users.bob.token,
      headers: { upgrade: "websocket" },
    });
    expect(byHeader.webSocket).toBeNull();
    await expectHidden(byHeader);
    const byQuery = await callApp(tokenEnv, `/api/threads/${thread.id}/ws?token=${users.bob.token}`, {
      headers: { upgrade: "websocket" },
    });
    expect(byQuery.webSocket).toBeNull();
    await expectHidden(byQuery);
  });

  it("bob's list has none of alice's threads; alice's has them", async () => {
    const bobsOwn = await createThreadVia(bob, { name: "bob's" });
    const bobs = await (await bob("/api/threads?limit=200")).json<any>();
    expect(bobs.threads.map((t: any) => t.id)).toEqual([bobsOwn.id]);
    expect(JSON.stringify(bobs)).not.toContain(secretName);
    for (const status of ["open", "active", "archived"]) {
      const filtered = await (await bob(`/api/threads?status=${status}`)).json<any>();
      expect(filtered.threads.every((t: any) => t.id !== thread.id)).toBe(true);
    }
    const alices = await (await alice("/api/threads?limit=200")).json<any>();
    expect(alices.threads.map((t: any) => t.id)).toContain(thread.id);
    expect(alices.threads.map((t: any) => t.id)).not.toContain(bobsOwn.id);
  });

  it("the local user of `none` mode does not see it either", async () => {
    await expectHidden(await callApp(env, `/api/threads/${thread.id}`));
    const list = await (await callApp(env, "/api/threads?limit=200")).json<any>();
    expect(list.threads.map((t: any) => t.id)).not.toContain(thread.id);
  });

  it("alice herself still reaches all of it", async () => {
    expect((await alice(`/api/threads/${thread.id}/messages`)).status).toBe(200);
    expect((await alice("/api/prewarm", { body: { threadId: thread.id } })).status).toBe(204);
    const stop = await alice(`/api/threads/${thread.id}/stop`, { method: "POST" });
    expect(stop.status).toBe(202);
    expect(await stop.json()).toEqual({ stopped: expect.any(Boolean) });
  });
});

describe("token mode: WebSockets", () => {
  it("?token= opens the socket, and `ready` comes first", async () => {
    const thread = await createThreadVia(alice);
    const res = await callApp(tokenEnv, `/api/threads/${thread.id}/ws?token=${users.alice.token}`, {
      headers: { upgrade: "websocket" },
    });
    expect(res.status).toBe(101);
    expect(res.webSocket).toBeTruthy();
    res.webSocket!.accept();
    const frames: any[] = [];
    res.webSocket!.addEventListener("message", (e) => {
      frames.push(JSON.parse(e.data as string));
    });
    await waitUntil(() => frames.length > 0);
    expect(frames[0]).toMatchObject({ event: "ready", data: { lastSeq: 0, running: null } });
    expect(frames[0].seq).toBeUndefined();
    res.webSocket!.close(1000, "done");
  });

  it("an Authorization header opens it too, and it receives the thread's events", async () => {
    const thread = await createThreadVia(alice);
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.alice.token}` });
    await ws.waitFor((f) => f.some((x) => x.event === "ready"));
    const patched = await alice(`/api/threads/${thread.id}`, { method: "PATCH", body: { name: "renamed over token" } });
    expect(patched.status).toBe(200);
    const [updated] = (await ws.waitFor((f) => f.some((x) => x.event === "thread:updated"))).filter((x) => x.event === "thread:updated");
    expect(updated.data.thread.name).toBe("renamed over token");
    ws.close();
  });

  it("without a token → 401 and no socket", async () => {
    const thread = await createThreadVia(alice);
    const res = await callApp(tokenEnv, `/api/threads/${thread.id}/ws`, { headers: { upgrade: "websocket" } });
    expect(res.webSocket).toBeNull();
    await expectError(res, 401, "unauthorized");
  });

  it("with a wrong ?token= → 401 and no socket", async () => {
    const thread = await createThreadVia(alice);
    const res = await callApp(tokenEnv, `/api/threads/${thread.id}/ws?token=nope`, { headers: { upgrade: "websocket" } });
    expect(res.webSocket).toBeNull();
    await expectError(res, 401, "unauthorized");
  });
});

describe("access mode", () => {
  const accessEnv = { ...env, AUTH_MODE: "access" };

  it("no JWT → 401 unauthorized", async () => {
    await expectError(await callApp(accessEnv, "/api/threads"), 401, "unauthorized");
  });

  it("a garbage JWT in the header or the cookie → 401", async () => {
    await expectError(
      await callApp(accessEnv, "/api/threads", { headers: { "cf-access-jwt-assertion": "not.a.jwt" } }),
      401,
      "unauthorized",
    );
    await expectError(
      await callApp(accessEnv, "/api/threads", { headers: { cookie: "CF_Authorization=garbage" } }),
      401,
      "unauthorized",
    );
  });

  it("a bearer token from token mode is no use in access mode", async () => {
    const res = await callApp({ ...accessEnv, AUTH_TOKENS: tokenEnv.AUTH_TOKENS }, "/api/threads", { token: users.alice.token });
    await expectError(res, 401, "unauthorized");
  });

  it("the WebSocket route without a JWT → 401", async () => {
    const thread = await createThreadVia(alice);
    const res = await callApp(accessEnv, `/api/threads/${thread.id}/ws`, { headers: { upgrade: "websocket" } });
    expect(res.webSocket).toBeNull();
    await expectError(res, 401, "unauthorized");
  });
});

async function waitUntil(pred: () => boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}
