// The OAuth callback (GET /api/mcp/callback) is a browser's redirect from the server's sign-in page: it
// carries no bearer token (token mode) and maybe no Access cookie, so it is authorized by its one-time
// `state` alone, which names the object of the user who started the sign-in. A wrong, reused or
// expired state goes back to Connections with mcp_error and changes nothing; another user's key in
// it reaches no sign-in of theirs.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { UserRoom } from "../../worker/user/room";
import { userObject } from "../helpers";
import { callApp, env, tokenUsers } from "../http/util";

const { users, as, tokenEnv } = tokenUsers("alice", "bob");
const [alice, bob] = [as(users.alice), as(users.bob)];
const control = async (path: string) => (await fetch(`${env.MCP_CONTROL_URL}${path}`)).json<any>();

let n = 0;

/** Adds an OAuth server as `call`'s user; the callback's query the authorization server sends the browser back with. */
async function startSignIn(call: typeof alice) {
  const res = await call("/api/mcp/servers", { body: { name: `oauth${++n}`, url: `${env.MCP_TEST_URL}/auth/mcp` } });
  const { server } = await res.json<any>();
  expect(server.status).toBe("authenticating");
  const back = await fetch(server.authUrl, { redirect: "manual" });
  const query = new URL(back.headers.get("location")!).searchParams;
  return { server, state: query.get("state")!, code: query.get("code")! };
}

/** The callback as the browser reaches it: no Authorization header, no cookie. */
const callback = (appEnv: typeof env, query: Record<string, string>) => callApp(appEnv, `/api/mcp/callback?${new URLSearchParams(query)}`);
const serverOf = async (call: typeof alice, id: string) => (await (await call("/api/mcp/servers")).json<any>()).servers.find((s: any) => s.id === id);
const holderOf = (userId: string) => env.USER_ROOM.idFromName(userId).toString();

beforeEach(() => control("/reset"));

describe("the OAuth callback in token mode", () => {
  it("finishes the sign-in without a bearer token, once: its state names the user's object and holds 128 random bits or more", async () => {
    const { server, state, code } = await startSignIn(alice);
    const [holder, ...rest] = state.split(".");
    expect(holder).toBe(holderOf(users.alice.id));
    expect(rest.at(-1)!.length * 6).toBeGreaterThanOrEqual(128);

    const done = await callback(tokenEnv, { state, code });
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe(`/settings/connections?mcp=${server.id}`);
    const signedIn = await serverOf(alice, server.id);
    expect(signedIn.status).toBe("connected");
    expect(signedIn.tools.map((t: any) => t.name)).toContain("echo");

    const again = await callback(tokenEnv, { state, code });
    expect(again.status).toBe(302);
    expect(again.headers.get("location")).toMatch(/^\/settings\/connections\?mcp_error=/);
    expect((await serverOf(alice, server.id)).status).toBe("connected");
  });

  it("refuses a forged state, and another user's key with Alice's state, leaving the real sign-in to finish", async () => {
    const { server, state, code } = await startSignIn(alice);
    await bob("/api/mcp/servers"); // Bob's object exists, with no sign-in under way
    const random = state.split(".").at(-1)!;
    const forged = [
      state.slice(0, -random.length) + random.replace(/^./, (c) => (c === "A" ? "B" : "A")),
      state.replace(holderOf(users.alice.id), holderOf(users.bob.id)),
      `${"0".repeat(64)}.${state.split(".").slice(1).join(".")}`,
      "not-a-state",
      "",
    ];
    for (const s of forged) {
      const res = await callback(tokenEnv, { state: s, code });
      expect(res.status, s).toBe(302);
      expect(res.headers.get("location"), s).toMatch(/^\/settings\/connections\?mcp_error=/);
    }
    expect((await serverOf(alice, server.id)).status).toBe("authenticating");
    expect((await (await bob("/api/mcp/servers")).json<any>()).servers).toEqual([]);
    // A bearer token of Bob's changes nothing either: the state alone decides, and it is Alice's.
    const done = await callApp(tokenEnv, `/api/mcp/callback?${new URLSearchParams({ state, code })}`, { token: users.bob.token });
    expect(done.headers.get("location")).toBe(`/settings/connections?mcp=${server.id}`);
    expect((await serverOf(alice, server.id)).status).toBe("connected");
  });

  it("refuses an expired state, and gives the server a new sign-in address", async () => {
    const { server, state, code } = await startSignIn(alice);
    await runInDurableObject(userObject(users.alice.id) as DurableObjectStub<UserRoom>, (_room, ctx) => {
      const [row] = ctx.storage.sql.exec<{ secrets: string }>("SELECT secrets FROM mcp_servers WHERE id = ?", server.id).toArray();
      const secrets = JSON.parse(row.secrets);
      secrets.oauth.stateExpiresAt = Date.now() - 1;
      ctx.storage.sql.exec("UPDATE mcp_servers SET secrets = ? WHERE id = ?", JSON.stringify(secrets), server.id);
    });
    const res = await callback(tokenEnv, { state, code });
    expect(res.headers.get("location")).toMatch(/^\/settings\/connections\?mcp_error=.*expired/);
    const after = await serverOf(alice, server.id);
    expect(after.status).toBe("authenticating");
    expect(new URL(after.authUrl).searchParams.get("state")).not.toBe(state);
  });
});

// Cloudflare Access: a team of our own, whose certs the app fetches (as test/http/access.test.ts has it).
const TEAM = "https://callback-team.cloudflareaccess.com";
const AUD = "aud-callback";
const accessEnv = { ...env, AUTH_MODE: "access", ACCESS_TEAM_DOMAIN: TEAM, ACCESS_AUD: AUD };
const keys = (await crypto.subtle.generateKey(
  { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
  true,
  ["sign", "verify"],
)) as CryptoKeyPair;
const b64url = (s: string | Uint8Array) => btoa(typeof s === "string" ? s : String.fromCharCode(...s)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

async function accessJwt(email: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const signed = `${b64url(JSON.stringify({ alg: "RS256", kid: "k1", typ: "JWT" }))}.${b64url(JSON.stringify({ iss: TEAM, aud: [AUD], email, exp: now + 600, iat: now }))}`;
  const sig = new Uint8Array(await crypto.subtle.sign("RSASSA-PKCS1-v1_5", keys.privateKey, new TextEncoder().encode(signed)));
  return `${signed}.${b64url(sig)}`;
}

describe("the OAuth callback in access mode", () => {
  afterEach(() => vi.restoreAllMocks());

  it("finishes the sign-in without the Access cookie", async () => {
    const publicJwk = { ...((await crypto.subtle.exportKey("jwk", keys.publicKey)) as JsonWebKey), kid: "k1" };
    const real = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      return url === `${TEAM}/cdn-cgi/access/certs` ? Response.json({ keys: [publicJwk] }) : real(input as RequestInfo, init);
    });
    const email = `ada-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const jwt = await accessJwt(email);
    const ada = (path: string, opts: { body?: unknown } = {}) => callApp(accessEnv, path, { ...opts, headers: { "cf-access-jwt-assertion": jwt } });
    const { server, state, code } = await startSignIn(ada as typeof alice);
    expect(state.split(".")[0]).toBe(holderOf(email));
    const done = await callback(accessEnv, { state, code });
    expect(done.headers.get("location")).toBe(`/settings/connections?mcp=${server.id}`);
    expect((await serverOf(ada as typeof alice, server.id)).status).toBe("connected");
  });
});
