import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { onUnauthorized, setAuthToken } from "../api";
import { CREDENTIAL_EXPIRED } from "@protocol";
import { ticketedSocketUrls } from "./socketTickets";

let calls: { method: string; url: string; body?: unknown }[];
let healthStatus: number;
let tickets: number;

beforeEach(() => {
  calls = [];
  healthStatus = 200;
  tickets = 0;
  vi.stubGlobal("location", { protocol: "https:", host: "app.example" });
  vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
    calls.push({ method: init.method ?? "GET", url, body: init.body ? JSON.parse(String(init.body)) : undefined });
    if (url === "/api/health") {
      return healthStatus === 200
        ? Response.json({ ok: true, auth: { mode: "token", userId: "alice", admin: false } })
        : Response.json({ error: { code: "unauthorized", message: "Sign in" } }, { status: healthStatus });
    }
    return Response.json({ ticket: `tkt-${++tickets}`, expiresAt: Date.now() + 60_000 }, { status: 201 });
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
  setAuthToken(null);
});

describe("ticketedSocketUrls", () => {
  it("opens every attempt with a fresh ticket, and never puts the token in the URL", async () => {
    setAuthToken("secret-token");
    let since: number | null = 7;
    const urls = ticketedSocketUrls("thr 1", () => since);
    expect(await urls.next()).toBe("wss://app.example/api/threads/thr%201/ws?ticket=tkt-1&since=7");
    since = 9;
    const again = await urls.next();
    expect(again).toBe("wss://app.example/api/threads/thr%201/ws?ticket=tkt-2&since=9");
    expect(again).not.toContain("secret-token");
    expect(calls).toEqual([
      { method: "POST", url: "/api/ws-ticket", body: { threadId: "thr 1" } },
      { method: "POST", url: "/api/ws-ticket", body: { threadId: "thr 1" } },
    ]);
  });

  it("leaves `since` out before the first event is known", async () => {
    expect(await ticketedSocketUrls("t", () => null).next()).toBe("wss://app.example/api/threads/t/ws?ticket=tkt-1");
  });

  it("asks whether the user is still signed in after a 4001, then reconnects with a new ticket", async () => {
    const urls = ticketedSocketUrls("t", () => 3);
    await urls.next();
    urls.closed(1006); // an ordinary drop: no check
    await urls.next();
    urls.closed(CREDENTIAL_EXPIRED);
    expect(await urls.next()).toContain("ticket=tkt-3");
    await urls.next(); // checked once, not at every attempt after
    expect(calls.map((c) => c.url)).toEqual(["/api/ws-ticket", "/api/ws-ticket", "/api/health", "/api/ws-ticket", "/api/ws-ticket"]);
  });

  it("after a 4001, a 401 from /api/health takes no ticket and shows sign-in", async () => {
    const signIn = vi.fn();
    const off = onUnauthorized(signIn);
    const urls = ticketedSocketUrls("t", () => 3);
    urls.closed(CREDENTIAL_EXPIRED);
    healthStatus = 401;
    await expect(urls.next()).rejects.toMatchObject({ status: 401 });
    off();
    expect(signIn).toHaveBeenCalledTimes(1);
    expect(calls.map((c) => c.url)).toEqual(["/api/health"]);
  });

  it("a failed check is tried again at the next attempt", async () => {
    const urls = ticketedSocketUrls("t", () => 3);
    urls.closed(CREDENTIAL_EXPIRED);
    healthStatus = 503;
    await expect(urls.next()).rejects.toMatchObject({ status: 503 });
    healthStatus = 200;
    await urls.next();
    expect(calls.map((c) => c.url)).toEqual(["/api/health", "/api/health", "/api/ws-ticket"]);
  });
});
