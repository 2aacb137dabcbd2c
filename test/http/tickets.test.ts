// A socket opened with a one-use ticket (POST /api/ws-ticket) instead of a token in its URL.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ThreadRoom } from "../../worker/thread/room";
import { callApp, createThreadVia, expectError, openSocketVia, tokenUsers } from "./util";
import { threadObject } from "../helpers";

async function ticketFor(call: ReturnType<ReturnType<typeof tokenUsers>["as"]>, threadId: string) {
  const res = await call("/api/ws-ticket", { body: { threadId } });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json<{ ticket: string; expiresAt: number }>();
}

describe("socket tickets", () => {
  it("open the thread's socket once, within a minute, with no token in the URL", async () => {
    const { users, as, tokenEnv } = tokenUsers("alice");
    const thread = await createThreadVia(as(users.alice));
    const { ticket, expiresAt } = await ticketFor(as(users.alice), thread.id);
    expect(ticket).toMatch(/^[\w-]{32,}$/);
    expect(expiresAt - Date.now()).toBeGreaterThan(55_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(60_000);

    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws?ticket=${ticket}`);
    await ws.waitFor((f) => f.some((x) => x.event === "ready"));
    ws.close();
    await expectError(await callApp(tokenEnv, `/api/threads/${thread.id}/ws?ticket=${ticket}`, { headers: { upgrade: "websocket" } }), 401, "unauthorized");
  });

  it("are refused for another user's thread, on another thread, made up, expired, or off the socket route", async () => {
    const { users, as, tokenEnv } = tokenUsers("alice", "bob");
    const [mine, other] = [await createThreadVia(as(users.alice)), await createThreadVia(as(users.alice))];
    await expectError(await as(users.bob)("/api/ws-ticket", { body: { threadId: mine.id } }), 404, "not_found");
    await expectError(await as(users.alice)("/api/ws-ticket", { body: {} }), 400, "invalid_request");
    const upgrade = (path: string) => callApp(tokenEnv, path, { headers: { upgrade: "websocket" } });

    const { ticket } = await ticketFor(as(users.alice), mine.id);
    await expectError(await upgrade(`/api/threads/${other.id}/ws?ticket=${ticket}`), 401, "unauthorized");
    await expectError(await upgrade(`/api/threads/${mine.id}/ws?ticket=tkt_made_up`), 401, "unauthorized");
    await expectError(await callApp(tokenEnv, `/api/threads/${mine.id}?ticket=${ticket}`), 401, "unauthorized");

    const room = threadObject(mine.id);
    const stale = await runInDurableObject(room, (r: ThreadRoom) => r.parts.store.tickets.issue(users.alice.id, null, Date.now() - 61_000).ticket);
    await expectError(await upgrade(`/api/threads/${mine.id}/ws?ticket=${stale}`), 401, "unauthorized");
    // The ticket for `mine` was not spent by the failed tries elsewhere.
    const ws = await openSocketVia(tokenEnv, `/api/threads/${mine.id}/ws?ticket=${ticket}`);
    await ws.waitFor((f) => f.some((x) => x.event === "ready"));
    ws.close();
  });
});
