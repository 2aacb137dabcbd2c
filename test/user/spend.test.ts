// The spend cap held by the user's object: while a cap is set every run reserves its worst case there
// before its model request, whichever thread it is in, so runs started at once pass the cap by at most
// one run's cost; and a spend that cannot be learned never counts as $0 (USER_DAILY_COST_USD is 50 in
// the test bindings).
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ThreadRoom } from "../../worker/thread/room";
import { userStub } from "../../worker/user/stub";
import { marker, reportRun, script, settle, threadObject, until, upstreamRequests } from "../helpers";
import { createThreadVia, env, expectError, openSocketVia, tokenUsers } from "../http/util";

const CAP = 50;

/** Ten threads of a new user, each of which ran once today far from the cap ($0.12 a run), with their sockets. */
async function tenThreadsThatRan(name: string) {
  const { users, as, tokenEnv } = tokenUsers(name);
  const user = users[name];
  const call = as(user);
  const m = marker(name);
  await script(m, Array.from({ length: 20 }, () => ({ kind: "text" as const, text: "An answer.", usage: { output_tokens: 8_000 } })));
  const threads = await Promise.all(Array.from({ length: 10 }, () => createThreadVia(call)));
  const sockets = await Promise.all(threads.map((t) => openSocketVia(tokenEnv, `/api/threads/${t.id}/ws`, { authorization: `Bearer ${user.token}` })));
  const post = (content: string) => Promise.all(threads.map((t) => call(`/api/threads/${t.id}/messages`, { body: { content: `${content} ${m}` } })));
  expect((await post("earlier")).every((r) => r.status === 202)).toBe(true);
  await Promise.all(sockets.map((s) => s.waitForRunEnd(1, 20_000)));
  await settle();
  expect(await upstreamRequests(m)).toHaveLength(10);
  return { user, call, threads, post, sockets, m };
}

describe("the spend cap, held by the user's object", () => {
  it("lets 20 runs started at once near the cap pass it by at most one run's cost in all", async () => {
    const { users, as, tokenEnv } = tokenUsers("crowd");
    const call = as(users.crowd);
    await reportRun(users.crowd.id, 49.5);
    const m = marker("crowd");
    // Each answer costs $0.12 (8,000 output tokens on Sonnet); without reservations all 20 ran: $51.90.
    await script(m, Array.from({ length: 20 }, () => ({ kind: "text" as const, text: "An answer.", usage: { output_tokens: 8_000 } })));
    const threads = await Promise.all(Array.from({ length: 20 }, () => createThreadVia(call)));
    const sockets = await Promise.all(threads.map((t) => openSocketVia(tokenEnv, `/api/threads/${t.id}/ws`, { authorization: `Bearer ${users.crowd.token}` })));
    const posted = await Promise.all(threads.map((t) => call(`/api/threads/${t.id}/messages`, { body: { content: `go ${m}` } })));
    expect(posted.every((r) => r.status === 202)).toBe(true);
    await Promise.all(sockets.map((s) => s.waitForRunEnd(1, 20_000)));
    await settle();
    const ended = sockets.map((s) => s.events().find((f) => f.event === "pipeline:complete" || f.event === "pipeline:error")!);
    const refused = ended.filter((f) => f.event === "pipeline:error");
    expect(refused.length).toBeGreaterThan(0);
    for (const f of refused) expect(f.data).toMatchObject({ code: "rate_limited", retryable: false, message: expect.stringContaining("$50.00") });
    const ran = ended.length - refused.length;
    expect(await upstreamRequests(m)).toHaveLength(ran);
    const { spentUsd } = await userStub(env, users.crowd.id).spend();
    // Each run's real cost is its $0.12 of output and a little input: all of it is in the ledger.
    expect(ran).toBeGreaterThan(0);
    expect(spentUsd).toBeGreaterThanOrEqual(49.5 + ran * 0.12);
    expect(spentUsd).toBeLessThanOrEqual(CAP + 0.13);
    for (const s of sockets) s.close();
  });

  it("at the cap, refuses posts to ten threads that ran earlier today, and a schedule's fire in one of them", async () => {
    const { user, call, threads, post, sockets, m } = await tenThreadsThatRan("atcap");
    // Another thread (another device) brings the day to the cap: none of the ten hears of it.
    await reportRun(user.id, CAP - (await userStub(env, user.id).spend()).spentUsd);
    for (const r of await post("at the cap")) await expectError(r, 429, "rate_limited");
    const schedule = (await (await call(`/api/threads/${threads[0].id}/schedules`, { body: { prompt: `fire ${m}`, every: 3600 } })).json<any>()).schedule;
    await runInDurableObject(threadObject(threads[0].id), (_r: DurableObject, state) => {
      state.storage.sql.exec("UPDATE schedules SET next_run_at = ? WHERE id = ?", Date.now(), schedule.id);
    });
    await runDurableObjectAlarm(threadObject(threads[0].id));
    await settle();
    const [fired] = (await (await call(`/api/threads/${threads[0].id}/schedules`)).json<any>()).schedules;
    expect(fired.lastStatus).toBe("failed");
    expect(await upstreamRequests(m)).toHaveLength(10);
    for (const s of sockets) s.close();
  });

  it("near the cap, lets one run of ten posted at once to threads that ran earlier today: the cap is passed by one run's cost at most", async () => {
    const { user, post, sockets, m } = await tenThreadsThatRan("nearcap");
    // Room for one run's worst case (about $0.15: 8,192 tokens of output and the prompt) and not two.
    await reportRun(user.id, CAP - 0.25 - (await userStub(env, user.id).spend()).spentUsd);
    expect((await post("near the cap")).every((r) => r.status === 202)).toBe(true);
    await Promise.all(sockets.map((s) => s.waitForRunEnd(2, 20_000)));
    await settle();
    const ran = (await upstreamRequests(m)).length - 10;
    expect(ran).toBeLessThanOrEqual(1);
    const ends = sockets.map((s) => s.events().filter((f) => f.event === "pipeline:complete" || f.event === "pipeline:error")[1]);
    const refused = ends.filter((f) => f.event === "pipeline:error");
    expect(refused).toHaveLength(10 - ran);
    for (const f of refused) expect(f.data).toMatchObject({ code: "rate_limited", retryable: false });
    expect((await userStub(env, user.id).spend()).spentUsd).toBeLessThanOrEqual(CAP + 0.13);
    for (const s of sockets) s.close();
  });

  it("reserves before each tool round too: a run whose next request would pass the cap ends there", async () => {
    const { users, as, tokenEnv } = tokenUsers("rounds");
    const call = as(users.rounds);
    // Room for one request's worst case (about $0.15) and not two: the first round passes, the second not.
    await reportRun(users.rounds.id, CAP - 0.2);
    const thread = await createThreadVia(call);
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.rounds.token}` });
    const m = marker("rounds");
    const asks = { kind: "tool_use" as const, text: "Let me check the time.", tools: [{ name: "time__current_time", input: {}, id: "toolu_rounds" }], usage: { output_tokens: 50 } };
    await script(m, [asks, { kind: "text" as const, text: "It is late.", usage: { output_tokens: 50 } }]);
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `time? ${m}` } })).status).toBe(202);
    const end = (await ws.waitForRunEnd(1, 20_000)).filter((f) => f.event === "pipeline:complete" || f.event === "pipeline:error").at(-1)!;
    expect(end.event).toBe("pipeline:error");
    expect(end.data).toMatchObject({ code: "rate_limited", retryable: false, message: expect.stringContaining("$50.00") });
    expect(await upstreamRequests(m)).toHaveLength(1);
    await settle();
    // What the one request cost is kept; what was reserved for it is released.
    const { spentUsd } = await userStub(env, users.rounds.id).spend();
    expect(spentUsd).toBeGreaterThan(CAP - 0.2);
    expect(spentUsd).toBeLessThan(CAP - 0.15);
    ws.close();
  });

  it("asks the rate limit and the spend cap at once: a post waits on the slower of the two, not on both", async () => {
    const { users, as } = tokenUsers("both");
    const call = as(users.both);
    const thread = await createThreadVia(call);
    await runInDurableObject(threadObject(thread.id), (r: ThreadRoom) => {
      const { spend } = r.parts;
      const check = spend.check.bind(spend);
      let asked = () => {};
      const spendAsked = new Promise<void>((resolve) => (asked = resolve));
      spend.check = (...args) => (asked(), check(...args));
      // A limiter that lets the post through only once the spend cap has been asked: asked in turn, it
      // would refuse after its 2 s instead.
      const refusal = new Promise<RateLimitOutcome>((resolve) => setTimeout(() => resolve({ success: false }), 2_000));
      r.faults.limits.posts = { limit: () => Promise.race([spendAsked.then(() => ({ success: true })), refusal]) };
    });
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: "hello" } })).status).toBe(202);
    await settle();
    // Both refuse: the rate limit's refusal is the one a person gets, as when they were asked in turn.
    await reportRun(users.both.id, CAP);
    await runInDurableObject(threadObject(thread.id), (r: ThreadRoom) => void (r.faults.limits.posts = { limit: async () => ({ success: false }) }));
    const refused = await expectError(await call(`/api/threads/${thread.id}/messages`, { body: { content: "again" } }), 429, "rate_limited");
    expect(refused.message).toMatch(/Too many messages/);
  });

  it("refuses a post near the cap while the user's object cannot be reached: an unknown spend is never $0", async () => {
    const { users, as } = tokenUsers("unknown");
    const call = as(users.unknown);
    await reportRun(users.unknown.id, 45);
    const thread = await createThreadVia(call);
    await runInDurableObject(threadObject(thread.id), (r: ThreadRoom) => void (r.faults.user.down = true));
    const refused = await expectError(await call(`/api/threads/${thread.id}/messages`, { body: { content: "hello" } }), 503, "unavailable");
    expect(refused.message).toMatch(/could not be checked/);
    await runInDurableObject(threadObject(thread.id), (r: ThreadRoom) => void (r.faults.user.down = false));
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: "hello again" } })).status).toBe(202);
    await settle();
  });

  it("settles a run's cost the user's object missed when the alarm comes: its reservation gives way to it", async () => {
    const { users, as, tokenEnv } = tokenUsers("missed");
    const call = as(users.missed);
    const thread = await createThreadVia(call);
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.missed.token}` });
    const m = marker("missed");
    // $0.015 of output each; the second answer waits a little, so its owner's object goes away mid-run.
    await script(m, [
      { kind: "text" as const, text: "Answered.", usage: { output_tokens: 1_000 } },
      { kind: "text" as const, text: "Answered.", usage: { output_tokens: 1_000 }, firstByteDelayMs: 300 },
    ]);
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `one ${m}` } })).status).toBe(202);
    await ws.waitForRunEnd(1);
    await settle();
    const first = (await userStub(env, users.missed.id).spend()).spentUsd;
    expect(first).toBeGreaterThan(0.015);
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `two ${m}` } })).status).toBe(202);
    // The model has the request: the run reserved its worst case before it.
    await until(() => upstreamRequests(m), (r) => r.length === 2);
    await runInDurableObject(threadObject(thread.id), (r: ThreadRoom) => void (r.faults.user.down = true));
    await ws.waitForRunEnd(2);
    await settle();
    const reserved = (await userStub(env, users.missed.id).spend()).spentUsd;
    expect(reserved).toBeGreaterThan(first + 0.1);
    await runInDurableObject(threadObject(thread.id), (r: ThreadRoom) => void (r.faults.user.down = false));
    expect(await runDurableObjectAlarm(threadObject(thread.id))).toBe(true);
    const settled = (await userStub(env, users.missed.id).spend()).spentUsd;
    expect(settled).toBeGreaterThan(first + 0.015);
    expect(settled).toBeLessThan(reserved);
    ws.close();
  });
});
