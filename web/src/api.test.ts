import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError, onUnauthorized, request, setAuthToken } from "./api";

let calls: { url: string; init: RequestInit }[];
let answer: () => Response | Promise<Response>;

beforeEach(() => {
  calls = [];
  answer = () => Response.json({});
  vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return answer();
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
  setAuthToken(null);
});

describe("request", () => {
  it("fills the route's params, encodes them, and leaves empty query values out", async () => {
    await request("GET /api/threads/:id/messages", { params: { id: "thr 1/x" }, query: { limit: 50, before: undefined } });
    expect(calls[0].url).toBe("/api/threads/thr%201%2Fx/messages?limit=50");
    expect(calls[0].init.method).toBe("GET");
  });

  it("keeps a context file path's slashes and encodes its segments", async () => {
    await request("GET /api/context/:path", { params: { path: "notes/a b#1.md" } });
    expect(calls[0].url).toBe("/api/context/notes/a%20b%231.md");
  });

  it("sends the body as JSON, and the token when there is one", async () => {
    setAuthToken("tok");
    await request("PATCH /api/threads/:id", { params: { id: "thr_1" }, body: { name: "n" } });
    const headers = calls[0].init.headers as Record<string, string>;
    expect(calls[0].init.body).toBe('{"name":"n"}');
    expect(headers["Content-Type"]).toBe("application/json");
    expect(headers.Authorization).toBe("Bearer tok");
  });

  it("answers null for a 204", async () => {
    answer = () => new Response(null, { status: 204 });
    expect(await request("DELETE /api/threads/:id", { params: { id: "thr_1" } })).toBeNull();
  });

  it("turns the protocol's error body into an ApiError with its issues and Retry-After", async () => {
    answer = () =>
      Response.json(
        { error: { code: "rate_limited", message: "Slow down", issues: [{ path: "content", message: "too long", code: "too_big" }] } },
        { status: 429, headers: { "Retry-After": "5" } },
      );
    const err = await request("GET /api/health").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, code: "rate_limited", message: "Slow down", retryAfter: 5, transient: true });
    expect((err as ApiError).issues?.[0].path).toBe("content");
  });

  it("says so when an answer is not the protocol's", async () => {
    answer = () => new Response("<html>bad gateway</html>", { status: 502 });
    await expect(request("GET /api/health")).rejects.toMatchObject({ status: 502, code: "unexpected_response" });
    answer = () => new Response("not json", { status: 200 });
    await expect(request("GET /api/health")).rejects.toMatchObject({ status: 200, code: "unexpected_response" });
  });

  it("reports a network failure as status 0, and tells listeners about a 401", async () => {
    answer = () => Promise.reject(new TypeError("failed to fetch"));
    await expect(request("GET /api/health")).rejects.toMatchObject({ status: 0, code: "network", transient: true });

    const listener = vi.fn();
    const off = onUnauthorized(listener);
    answer = () => Response.json({ error: { code: "unauthorized", message: "Sign in" } }, { status: 401 });
    await expect(request("GET /api/health")).rejects.toMatchObject({ status: 401, transient: false });
    off();
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it("takes a redirect (Access sending the browser to sign in) for a 401, and tells listeners", async () => {
    const listener = vi.fn();
    const off = onUnauthorized(listener);
    // What fetch answers for a redirect with redirect: "manual" (Response cannot be built so).
    answer = () => ({ type: "opaqueredirect", status: 0, ok: false, headers: new Headers() }) as Response;
    await expect(request("GET /api/health")).rejects.toMatchObject({ status: 401, code: "unauthorized" });
    off();
    expect(listener).toHaveBeenCalledTimes(1);
    expect(calls[0].init.redirect).toBe("manual");
  });

  it("does not compile without what the route needs", () => {
    // Checked by tsc (web/tsconfig.json covers the tests); at run time these calls only reach the stub.
    // @ts-expect-error: the route has an :id
    void request("GET /api/threads/:id");
    // @ts-expect-error: the body's name is a string
    void request("PATCH /api/threads/:id", { params: { id: "x" }, body: { name: 1 } });
    // @ts-expect-error: GET /api/health takes no body
    void request("GET /api/health", { body: {} });
    // @ts-expect-error: an unknown route
    void request("GET /api/nowhere");
  });
});
