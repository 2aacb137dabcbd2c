// Shared resources, per user: posts and new threads per minute (the real rate-limiting binding), the
// daily spend cap (USER_DAILY_COST_USD is 50 in the test bindings), and plugins that only admins change.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { ThreadRoom } from "../../worker/thread/room";
import { api, type ApiOptions, marker, reportRun, roomRows, script, settle, threadObject, upstreamRequests } from "../helpers";
import { callApp, createThreadVia, env, expectError, openSocketVia, tokenUsers, type Env, type User } from "./util";

afterEach(() => settle());

const DAY_MS = 86_400_000;
const secondsToMidnight = () => Math.ceil((DAY_MS - (Date.now() % DAY_MS)) / 1000);

/** Token-mode users for whom the new threads' limiter is the tight one (3 a minute, per user). */
function tightUsers(limiter: "THREAD_LIMITER") {
  const t = tokenUsers("ann", "bob");
  const tight: Env = { ...t.tokenEnv, [limiter]: env.TIGHT_LIMITER };
  const as = (user: User) => (path: string, opts: Omit<ApiOptions, "token"> = {}) => callApp(tight, path, { ...opts, token: user.token });
  return { users: t.users, as };
}

describe("rate limits", () => {
  it("answers the fourth post in a minute with 429 and Retry-After, stores nothing, and leaves other users alone", async () => {
    const { users, as } = tokenUsers("ann", "bob");
    const [ann, bob] = [as(users.ann), as(users.bob)];
    const thread = await createThreadVia(ann);
    // Posts are limited by the thread's object (the path the socket's send frames take too).
    await runInDurableObject(threadObject(thread.id), (r: ThreadRoom) => void (r.faults.limits.posts = env.TIGHT_LIMITER));
    for (let i = 0; i < 3; i++) {
      expect((await ann(`/api/threads/${thread.id}/messages`, { body: { content: `hello ${i}` } })).status).toBe(202);
    }
    const refused = await ann(`/api/threads/${thread.id}/messages`, { body: { content: "one too many" } });
    expect(refused.headers.get("retry-after")).toBe("60");
    const error = await expectError(refused, 429, "rate_limited");
    expect(error.message).toMatch(/messages/);
    // Edits, regenerations and the original chat route count against the same limit.
    expect((await ann("/api/chat", { body: { threadId: thread.id, content: "via chat" } })).status).toBe(429);
    await settle();
    expect(await roomRows(thread.id, "messages", "content = ?", "one too many")).toBe(0);

    const bobs = await createThreadVia(bob);
    expect((await bob(`/api/threads/${bobs.id}/messages`, { body: { content: "mine" } })).status).toBe(202);
  });

  it("limits new threads per user, with nothing created past the limit", async () => {
    const { users, as } = tightUsers("THREAD_LIMITER");
    const make = () => as(users.ann)("/api/threads", { body: { name: "many" } });
    for (let i = 0; i < 3; i++) expect((await make()).status).toBe(201);
    const refused = await make();
    expect(refused.headers.get("retry-after")).toBe("60");
    await expectError(refused, 429, "rate_limited");
    expect((await (await as(users.ann)("/api/threads")).json<any>()).threads).toHaveLength(3);
  });
});

describe("daily spend cap", () => {
  it("refuses posts, edits and regenerations once a user's runs today cost more than the cap, until the next UTC day", async () => {
    const { users, as, tokenEnv } = tokenUsers("spender", "other");
    const call = as(users.spender);
    const thread = await createThreadVia(call);
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.spender.token}` });
    const m = marker("costly");
    // 4M output tokens on Sonnet: $60, past the $50 cap in one run.
    await script(m, [{ kind: "text", text: "An expensive answer.", usage: { output_tokens: 4_000_000 } }]);
    const first = await call(`/api/threads/${thread.id}/messages`, { body: { content: `spend ${m}` } });
    expect(first.status).toBe(202);
    const { message } = await first.json<any>();
    await ws.waitForRunEnd();
    ws.close();

    const post = await call(`/api/threads/${thread.id}/messages`, { body: { content: `more ${m}` } });
    const retryAfter = Number(post.headers.get("retry-after"));
    expect(Math.abs(retryAfter - secondsToMidnight())).toBeLessThanOrEqual(2);
    const error = await expectError(post, 429, "rate_limited");
    expect(error.message).toContain("$50.00");
    for (const path of [`/api/threads/${thread.id}/messages/${message.id}/edit`, `/api/threads/${thread.id}/messages/${message.id}/regenerate`]) {
      const body = path.endsWith("edit") ? { content: "edited" } : {};
      await expectError(await call(path, { body }), 429, "rate_limited");
    }
    await settle();
    expect(await roomRows(thread.id, "messages", "role = 'user'")).toBe(1);
    expect(await upstreamRequests(m)).toHaveLength(1);

    const usage = await (await call("/api/metrics")).json<any>();
    expect(usage.limits.dailyCapUsd).toBe(50);
    expect(usage.limits.spentTodayUsd).toBeGreaterThanOrEqual(60);

    // Another user's cap is their own.
    const theirs = await createThreadVia(as(users.other));
    expect((await as(users.other)(`/api/threads/${theirs.id}/messages`, { body: { content: "cheap" } })).status).toBe(202);
  });

  it("checks again as each run starts: a message queued before the cap was passed is not answered", async () => {
    const { users, as, tokenEnv } = tokenUsers("queued");
    const call = as(users.queued);
    const thread = await createThreadVia(call);
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.queued.token}` });
    const [costly, waiting] = [marker("costly"), marker("waiting")];
    await script(costly, [{ kind: "text", text: "An expensive answer.", usage: { output_tokens: 4_000_000 }, firstByteDelayMs: 300 }]);
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `spend ${costly}` } })).status).toBe(202);
    // Accepted while the first run is under way and the user is still under the cap.
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `then ${waiting}` } })).status).toBe(202);
    await ws.waitForRunEnd(2, 15_000);
    const [error] = ws.events("pipeline:error");
    expect(error.data).toMatchObject({ code: "rate_limited", retryable: false, message: expect.stringContaining("$50.00") });
    expect(ws.events("pipeline:complete")).toHaveLength(1);
    expect(await upstreamRequests(waiting)).toHaveLength(0);
    ws.close();
  });

  it("ends a delegated task whose next iteration would pass the cap, saying so", async () => {
    const { users, as, tokenEnv } = tokenUsers("delegator");
    const call = as(users.delegator);
    await reportRun(users.delegator.id, 49.5);
    const [p, c] = [marker("parent"), marker("child")];
    // The first iteration costs $1.50 (under the task's own cap) and answers nothing, so it is
    // rejected and a second would run, past the user's $50 for the day.
    await script(c, [{ kind: "text", text: " ", usage: { output_tokens: 100_000 } }]);
    await script(p, [{ kind: "text", text: `On it.\n/delegate find the figures ${c}` }]);
    const parent = await createThreadVia(call);
    const ws = await openSocketVia(tokenEnv, `/api/threads/${parent.id}/ws`, { authorization: `Bearer ${users.delegator.token}` });
    expect((await call(`/api/threads/${parent.id}/messages`, { body: { content: `delegate ${p}` } })).status).toBe(202);
    await ws.waitFor((f) => f.some((x) => x.event === "task:failed"), 20_000, "the task's end");
    const task = ws.events("task:failed")[0].data.task;
    expect(task).toMatchObject({ status: "failed", currentIteration: 2, result: expect.stringContaining("daily spend cap") });
    // The second iteration never reached the model.
    expect(await upstreamRequests(c)).toHaveLength(1);
    ws.close();
  });

  it("counts what the user spent in other threads today: a new thread's first post is refused", async () => {
    const { users, as } = tokenUsers("elsewhere");
    await reportRun(users.elsewhere.id, 51);
    const thread = await createThreadVia(as(users.elsewhere));
    const refused = await as(users.elsewhere)(`/api/threads/${thread.id}/messages`, { body: { content: "hello" } });
    await expectError(refused, 429, "rate_limited");
    expect(await roomRows(thread.id, "messages")).toBe(0);
  });

  it("does not count yesterday's spend", async () => {
    const { users, as } = tokenUsers("yesterday");
    const yesterday = Date.now() - (Date.now() % DAY_MS) - 1_000;
    await reportRun(users.yesterday.id, 500, yesterday);
    const thread = await createThreadVia(as(users.yesterday));
    expect((await as(users.yesterday)(`/api/threads/${thread.id}/messages`, { body: { content: "a new day" } })).status).toBe(202);
  });
});

describe("plugins are the admins'", () => {
  it("answers 403 to a user who is not in ADMIN_USERS, and changes nothing", async () => {
    const { users, tokenEnv } = tokenUsers("admin", "user");
    const adminEnv: Env = { ...tokenEnv, ADMIN_USERS: users.admin.id };
    const patch = (token: string, body: object) => callApp(adminEnv, "/api/plugins/activity", { method: "PATCH", body, token });
    const before = await env.DB.prepare("SELECT enabled, settings FROM plugin_configs WHERE name = 'activity'").first();
    await expectError(await patch(users.user.token, { enabled: false }), 403, "forbidden");
    expect(await env.DB.prepare("SELECT enabled, settings FROM plugin_configs WHERE name = 'activity'").first()).toEqual(before);
    // Reading them is everyone's.
    expect((await callApp(adminEnv, "/api/plugins", { token: users.user.token })).status).toBe(200);
    const health = await (await callApp(adminEnv, "/api/health", { token: users.user.token })).json<any>();
    expect(health.auth).toEqual({ mode: "token", userId: users.user.id, admin: false });

    const ok = await patch(users.admin.token, { enabled: true });
    expect(ok.status).toBe(200);
  });

  it("will not turn metrics off while a spend cap counts on it", async () => {
    const res = await api("/api/plugins/metrics", { method: "PATCH", body: { enabled: false } });
    await expectError(res, 409, "conflict");
  });
});
