// The spend cap held by the user's object: runs started at once near the cap reserve their worst case
// there before their model request, so together they pass the cap by at most one run's cost; and a
// spend that cannot be learned never counts as $0 (USER_DAILY_COST_USD is 50 in the test bindings).
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ThreadRoom } from "../../worker/thread/room";
import { userStub } from "../../worker/user/stub";
import { marker, reportRun, script, settle, threadObject, upstreamRequests } from "../helpers";
import { createThreadVia, env, expectError, openSocketVia, tokenUsers } from "../http/util";

const CAP = 50;

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

  it("settles a run's cost the user's object missed when the alarm comes: the total catches up", async () => {
    const { users, as, tokenEnv } = tokenUsers("missed");
    const call = as(users.missed);
    const thread = await createThreadVia(call);
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.missed.token}` });
    const m = marker("missed");
    // $0.015 of output each, far from the cap: the thread asks the user's object nothing before a run.
    await script(m, [1, 2].map(() => ({ kind: "text" as const, text: "Answered.", usage: { output_tokens: 1_000 } })));
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `one ${m}` } })).status).toBe(202);
    await ws.waitForRunEnd(1);
    await settle();
    const first = (await userStub(env, users.missed.id).spend()).spentUsd;
    expect(first).toBeGreaterThan(0.015);
    await runInDurableObject(threadObject(thread.id), (r: ThreadRoom) => void (r.faults.user.down = true));
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `two ${m}` } })).status).toBe(202);
    await ws.waitForRunEnd(2);
    await settle();
    expect((await userStub(env, users.missed.id).spend()).spentUsd).toBe(first);
    await runInDurableObject(threadObject(thread.id), (r: ThreadRoom) => void (r.faults.user.down = false));
    expect(await runDurableObjectAlarm(threadObject(thread.id))).toBe(true);
    expect((await userStub(env, users.missed.id).spend()).spentUsd).toBeGreaterThan(first + 0.015);
    ws.close();
  });
});
