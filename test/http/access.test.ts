import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { forgetAccessKeys, forgetIsolateKeys, KEY_TTL_MS, STALE_KEYS_MS } from "../../worker/http/access-jwt";
import { ownerOf } from "../helpers";
import { callApp, expectError, openSocketVia } from "./util";

// A Cloudflare Access team of our own: a key pair, its published certs, and signed JWTs.
const TEAM = "https://test-team.cloudflareaccess.com";
const AUD = "aud-tag-123";
const accessEnv = { ...env, AUTH_MODE: "access", ACCESS_TEAM_DOMAIN: TEAM, ACCESS_AUD: AUD };

const keys = (await crypto.subtle.generateKey(
  { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
  true,
  ["sign", "verify"],
)) as CryptoKeyPair;
const publicJwk = { ...((await crypto.subtle.exportKey("jwk", keys.publicKey)) as JsonWebKey), kid: "kid-1" };

const b64url = (bytes: Uint8Array | string) =>
  btoa(typeof bytes === "string" ? bytes : String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

async function jwt(claims: Record<string, unknown>, kid = "kid-1", key = keys.privateKey): Promise<string> {
  const head = b64url(JSON.stringify({ alg: "RS256", kid, typ: "JWT" }));
  const body = b64url(JSON.stringify(claims));
  const sig = new Uint8Array(await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, new TextEncoder().encode(`${head}.${body}`)));
  return `${head}.${body}.${b64url(sig)}`;
}

const now = () => Math.floor(Date.now() / 1000);
const valid = (extra: Record<string, unknown> = {}) => ({ iss: TEAM, aud: [AUD], email: "ada@example.com", exp: now() + 600, iat: now(), ...extra });


afterEach(() => {
  vi.restoreAllMocks();
  return forgetAccessKeys(TEAM);
});

const newKeys = async () =>
  (await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;

/** The team's certs endpoint answering `respond()` (called at each fetch), counting the fetches. */
function serveCertsWith(respond: () => Response) {
  const real = globalThis.fetch;
  const fetched = { count: 0 };
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url !== `${TEAM}/cdn-cgi/access/certs`) return real(input as RequestInfo, init);
    fetched.count++;
    return respond();
  });
  return fetched;
}

/** The team's certs endpoint serving our key. */
const serveCerts = () => serveCertsWith(() => Response.json({ keys: [publicJwk] }));

/** The team's certs endpoint serving `published()` (read at each fetch), counting the fetches. */
const serveRotatingCerts = (published: () => JsonWebKey[]) => serveCertsWith(() => Response.json({ keys: published() }));

const asAccess = (token: string, path = "/api/threads", opts: Record<string, unknown> = {}) =>
  callApp(accessEnv, path, { ...opts, headers: { "cf-access-jwt-assertion": token, ...((opts.headers as object) ?? {}) } });

describe("AUTH_MODE=access", () => {
  it("accepts a valid Access JWT from the header or the cookie, as the token's email", async () => {
    serveCerts();
    const token = await jwt(valid());
    const created = await callApp(accessEnv, "/api/threads", { body: { name: "access" }, headers: { "cf-access-jwt-assertion": token } });
    expect(created.status).toBe(201);
    const { thread } = await created.json<any>();
    const viaCookie = await callApp(accessEnv, `/api/threads/${thread.id}`, { headers: { cookie: `CF_Authorization=${token}` } });
    expect(viaCookie.status).toBe(200);
    expect(await ownerOf(thread.id)).toBe("ada@example.com");
  });

  it("refuses a wrong audience, an expired token, an unknown key and a forged signature", async () => {
    serveCerts();
    const other = (await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign", "verify"],
    )) as CryptoKeyPair;
    const bad = [
      await jwt(valid({ aud: ["someone-else"] })),
      await jwt(valid({ exp: now() - 10 })),
      await jwt(valid(), "kid-unknown"),
      await jwt(valid(), "kid-1", other.privateKey),
    ];
    for (const token of bad) {
      const res = await callApp(accessEnv, "/api/threads", { headers: { "cf-access-jwt-assertion": token } });
      expect(res.status).toBe(401);
      expect((await res.json<any>()).error.code).toBe("unauthorized");
    }
  });
});

describe("AUTH_MODE=access: what a token must be", () => {
  it("refuses another issuer, no issuer, and a token with more or fewer than three segments", async () => {
    serveCerts();
    const good = await jwt(valid());
    expect((await asAccess(good)).status).toBe(200);
    const bad = [
      await jwt(valid({ iss: "https://evil.cloudflareaccess.com" })),
      await jwt(valid({ iss: undefined })),
      `${good}.extra`,
      `${good}.`,
      good.split(".").slice(0, 2).join("."),
    ];
    for (const token of bad) await expectError(await asAccess(token), 401, "unauthorized");
  });

  it("takes tokens signed with a rotated key at once, fetching the keys again at most once a minute", async () => {
    const rotated = await newKeys();
    const rotatedJwk = { ...((await crypto.subtle.exportKey("jwk", rotated.publicKey)) as JsonWebKey), kid: "kid-2" };
    let keysNow: JsonWebKey[] = [publicJwk];
    const fetched = serveRotatingCerts(() => keysNow);
    expect((await asAccess(await jwt(valid()))).status).toBe(200);
    expect(fetched.count).toBe(1);
    // The team rotates its key: a token with the new kid makes us fetch again, once.
    keysNow = [publicJwk, rotatedJwk];
    expect((await asAccess(await jwt(valid(), "kid-2", rotated.privateKey))).status).toBe(200);
    expect(fetched.count).toBe(2);
    // Unknown kids within the minute do not fetch again (no one can make us hammer the endpoint).
    for (const kid of ["kid-3", "kid-4", "kid-5"]) await expectError(await asAccess(await jwt(valid(), kid)), 401, "unauthorized");
    expect(fetched.count).toBe(2);
  });

  it("gives up on a certs endpoint that does not answer, with a 401 rather than a hang", async () => {
    const real = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url !== `${TEAM}/cdn-cgi/access/certs`) return real(input as RequestInfo, init);
      // Never answers; only the caller's timeout signal ends it.
      return new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)));
    });
    const started = Date.now();
    await expectError(await asAccess(await jwt(valid())), 401, "unauthorized");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("AUTH_MODE=access: when the certs endpoint fails", () => {
  it("serves the last good keys for a bounded while, trying again once a minute, and refuses past it", async () => {
    let answer: "keys" | "error" | "throw" = "keys";
    const fetched = serveCertsWith(() => {
      if (answer === "throw") throw new TypeError("network connection lost");
      return answer === "error" ? new Response("bad gateway", { status: 502 }) : Response.json({ keys: [publicJwk] });
    });
    const start = Date.now();
    const clock = vi.spyOn(Date, "now");
    /** A request at `ms` after the first, with a token made then. */
    const at = async (ms: number) => {
      clock.mockReturnValue(start + ms);
      return asAccess(await jwt(valid()), "/api/health");
    };

    expect((await at(0)).status).toBe(200);
    expect(fetched.count).toBe(1);
    answer = "error";
    // The keys are due again, the endpoint fails: the held ones still verify, and the next requests
    // within the minute do not wait on the endpoint again.
    expect((await at(KEY_TTL_MS + 1_000)).status).toBe(200);
    expect(fetched.count).toBe(2);
    expect((await at(KEY_TTL_MS + 30_000)).status).toBe(200);
    expect(fetched.count).toBe(2);
    answer = "throw";
    expect((await at(STALE_KEYS_MS - 10_000)).status).toBe(200);
    expect(fetched.count).toBe(3);
    // Past the window the held keys are too old to trust.
    await expectError(await at(STALE_KEYS_MS + 1_000), 401, "unauthorized");
    expect(fetched.count).toBe(4);
    // With nothing to fall back on, the next seconds' requests are refused without waiting on it.
    answer = "keys";
    await expectError(await at(STALE_KEYS_MS + 3_000), 401, "unauthorized");
    expect(fetched.count).toBe(4);
    expect((await at(STALE_KEYS_MS + 7_000)).status).toBe(200);
    expect(fetched.count).toBe(5);
  });

  it("a new isolate during an outage verifies with the last good keys kept at the edge, and waits on no fetch", async () => {
    let down = false;
    const fetched = serveCertsWith(() => {
      if (down) throw new TypeError("network connection lost");
      return Response.json({ keys: [publicJwk] });
    });
    expect((await asAccess(await jwt(valid()), "/api/health")).status).toBe(200);
    expect(fetched.count).toBe(1);
    down = true;
    forgetIsolateKeys();
    expect((await asAccess(await jwt(valid()), "/api/health")).status).toBe(200);
    expect(fetched.count).toBe(1);
  });

  it("with no keys anywhere and the endpoint hanging, requests together wait on one fetch, and the next ones on none", async () => {
    const real = globalThis.fetch;
    let fetched = 0;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url !== `${TEAM}/cdn-cgi/access/certs`) return real(input as RequestInfo, init);
      fetched++;
      return new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)));
    });
    const token = await jwt(valid());
    const together = await Promise.all(Array.from({ length: 5 }, () => asAccess(token, "/api/health")));
    for (const res of together) await expectError(res, 401, "unauthorized");
    expect(fetched).toBe(1);
    const started = Date.now();
    await expectError(await asAccess(token, "/api/health"), 401, "unauthorized");
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(fetched).toBe(1);
  });
});

describe("AUTH_MODE=access: requests from another site", () => {
  it("refuses a state-changing request or a socket whose Origin is another site, and takes ours or none", async () => {
    serveCerts();
    const token = await jwt(valid());
    const cookie = { cookie: `CF_Authorization=${token}` };
    const from = (origin: string) => ({ ...cookie, origin });
    await expectError(await callApp(accessEnv, "/api/threads", { body: { name: "csrf" }, headers: from("https://evil.test") }), 403, "forbidden");
    const created = await callApp(accessEnv, "/api/threads", { body: { name: "same site" }, headers: from("https://app.test") });
    expect(created.status).toBe(201);
    const { thread } = await created.json<any>();
    await expectError(await callApp(accessEnv, `/api/threads/${thread.id}/stop`, { method: "POST", headers: from("https://evil.test") }), 403, "forbidden");
    await expectError(await callApp(accessEnv, `/api/threads/${thread.id}/ws`, { headers: { ...from("https://evil.test"), upgrade: "websocket" } }), 403, "forbidden");
    // Reading is not changing; a client that sends no Origin (a script) is not a browser on another site.
    expect((await callApp(accessEnv, `/api/threads/${thread.id}`, { headers: from("https://evil.test") })).status).toBe(200);
    expect((await callApp(accessEnv, `/api/threads/${thread.id}/stop`, { method: "POST", headers: cookie })).status).toBe(202);
    const ws = await openSocketVia(accessEnv, `/api/threads/${thread.id}/ws`, from("https://app.test"));
    await ws.waitFor((f) => f.some((x) => x.event === "ready"));
    ws.close();
  });

  it("closes a socket when the token it was opened with expires (code 4001)", async () => {
    serveCerts();
    const token = await jwt(valid());
    const { thread } = await (await asAccess(token, "/api/threads", { body: { name: "expiring" } })).json<any>();
    const shortLived = await jwt(valid({ exp: now() + 2 }));
    const ws = await openSocketVia(accessEnv, `/api/threads/${thread.id}/ws`, { "cf-access-jwt-assertion": shortLived });
    let code = 0;
    ws.ws.addEventListener("close", (e) => (code = e.code));
    await ws.waitFor(() => ws.closed, 6_000, "the socket to close");
    expect(code).toBe(4001);
  });
});

