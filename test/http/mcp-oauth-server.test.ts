// The MCP server's OAuth 2.1 authorization server (worker/http/oauth/), as a connector meets it:
// discovery from /mcp's 401, dynamic registration, the consent page and the signed-in user's decision,
// the code for tokens with PKCE, refresh, revocation and expiry; and where its secrets never go.
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { app } from "../../worker/http/app";
import {
  authorizeQuery,
  bearer,
  connect,
  decide,
  exchangeCode,
  form,
  initialize,
  ORIGIN,
  pkce,
  registerClient,
  RESOURCE,
  RESOURCE_METADATA,
  type Client,
} from "./oauth-client";
import { callApp, expectError, tokenUsers } from "./util";

const { users, tokenEnv, as } = tokenUsers("alice", "bob");
const alice = as(users.alice);

describe("discovery", () => {
  it("the authorization server's metadata (RFC 8414): endpoints, PKCE S256, registration, the one resource and scope", async () => {
    const res = await callApp(tokenEnv, "/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    const meta = await res.json<Record<string, unknown>>();
    expect(meta).toMatchObject({
      issuer: ORIGIN,
      authorization_endpoint: `${ORIGIN}/oauth/authorize`,
      token_endpoint: `${ORIGIN}/oauth/token`,
      registration_endpoint: `${ORIGIN}/oauth/register`,
      revocation_endpoint: `${ORIGIN}/oauth/token`,
      code_challenge_methods_supported: ["S256"],
      response_types_supported: ["code"],
      scopes_supported: ["mcp"],
      protected_resources: [RESOURCE],
    });
    expect(meta.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
  });

  it("the MCP server's protected-resource metadata (RFC 9728) names the issuer", async () => {
    const res = await callApp(tokenEnv, "/.well-known/oauth-protected-resource/mcp");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ resource: RESOURCE, authorization_servers: [ORIGIN], scopes_supported: ["mcp"], bearer_methods_supported: ["header"] });
  });

  it("any other discovery document is a 404, not the web app's page", async () => {
    for (const path of ["/.well-known/openid-configuration", "/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/v1"]) {
      expect((await callApp(tokenEnv, path)).status, path).toBe(404);
    }
  });

  it.each([
    ["token", () => tokenEnv],
    ["access", () => ({ ...env, AUTH_MODE: "access", ACCESS_TEAM_DOMAIN: "https://team.cloudflareaccess.com", ACCESS_AUD: "aud" })],
  ])("/mcp without a credential (%s mode) → 401 with the Bearer challenge naming the resource's metadata", async (_mode, appEnv) => {
    for (const method of ["POST", "GET", "DELETE"]) {
      const res = await callApp(appEnv(), "/mcp", { method });
      expect(res.status, method).toBe(401);
      const challenge = res.headers.get("www-authenticate") ?? "";
      expect(challenge).toMatch(/^Bearer /);
      expect(challenge).toContain(`resource_metadata="${RESOURCE_METADATA}"`);
      expect(challenge).toContain('scope="mcp"');
    }
  });

  it("a browser client's preflight is answered, with the challenge header readable", async () => {
    const res = await callApp(tokenEnv, "/mcp", { method: "OPTIONS", headers: { origin: "https://inspector.example", "access-control-request-headers": "authorization" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://inspector.example");
  });
});

describe("the authorization code flow", () => {
  let client: Client;
  beforeAll(async () => {
    client = await registerClient(tokenEnv);
  });

  it("the authorization endpoint is the web app's page (the consent page)", async () => {
    const { challenge } = await pkce();
    const res = await callApp(tokenEnv, `/oauth/authorize?${authorizeQuery(client, challenge)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await res.text()).toMatch(/^<!doctype html>/i);
    // The page cannot be framed: a click on Allow is the user's own.
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });

  it("the page's request shows the client's name, where the code goes and what the grant reaches; signed out, 401", async () => {
    const { challenge } = await pkce();
    const request = authorizeQuery(client, challenge);
    const res = await alice(`/api/oauth/authorize?request=${encodeURIComponent(request)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({ consent: { clientName: "Test connector", redirectHost: "connector.example", redirectIsLoopback: false, scope: ["mcp"] } });
    await expectError(await callApp(tokenEnv, `/api/oauth/authorize?request=${encodeURIComponent(request)}`), 401, "unauthorized");
    await expectError(await callApp(tokenEnv, "/api/oauth/authorize", { body: { request, allow: true } }), 401, "unauthorized");
  });

  it("Allow → the client's redirect URI with a code, its state and the issuer; the code and its verifier → tokens; a wrong verifier, or the code again, is refused", async () => {
    const { verifier, challenge } = await pkce();
    const request = authorizeQuery(client, challenge);
    const back = await decide(alice, request, true);
    expect(`${back.origin}${back.pathname}`).toBe(client.redirectUri);
    expect(back.searchParams.get("state")).toBe(new URLSearchParams(request).get("state"));
    expect(back.searchParams.get("iss")).toBe(ORIGIN);
    const code = back.searchParams.get("code")!;
    expect(code).toBeTruthy();

    const wrong = await exchangeCode(tokenEnv, client, code, (await pkce()).verifier);
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: "invalid_grant" });

    const res = await exchangeCode(tokenEnv, client, code, verifier);
    expect(res.status, await res.clone().text()).toBe(200);
    const tokens = await res.json<Record<string, unknown>>();
    expect(tokens).toMatchObject({ token_type: "bearer", expires_in: 3600, scope: "mcp" });
    expect(typeof tokens.access_token).toBe("string");
    expect(typeof tokens.refresh_token).toBe("string");

    const again = await exchangeCode(tokenEnv, client, code, verifier);
    expect(again.status).toBe(400);
  });

  it("the access token reaches the MCP server (initialize answers), and a refreshed one too", async () => {
    const tokens = await connect(tokenEnv, alice, client);
    const res = await initialize(tokenEnv, bearer(tokens.access_token));
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.text()).toContain("serverInfo");

    const refreshed = await callApp(tokenEnv, "/oauth/token", form({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: client.clientId }));
    expect(refreshed.status, await refreshed.clone().text()).toBe(200);
    const next = await refreshed.json<{ access_token: string }>();
    expect(next.access_token).not.toBe(tokens.access_token);
    expect((await initialize(tokenEnv, bearer(next.access_token))).status).toBe(200);
  });

  it("Deny → the client's redirect URI with error=access_denied and its state, and no code", async () => {
    const { challenge } = await pkce();
    const request = authorizeQuery(client, challenge);
    const back = await decide(alice, request, false);
    expect(`${back.origin}${back.pathname}`).toBe(client.redirectUri);
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe(new URLSearchParams(request).get("state"));
    expect(back.searchParams.has("code")).toBe(false);
  });
});

describe("requests the consent page refuses", () => {
  it("without PKCE → back to the client with invalid_request, public or confidential", async () => {
    for (const confidential of [false, true]) {
      const client = await registerClient(tokenEnv, { confidential });
      const query = new URLSearchParams(authorizeQuery(client, "x"));
      query.delete("code_challenge");
      query.delete("code_challenge_method");
      const res = await alice(`/api/oauth/authorize?request=${encodeURIComponent(query.toString())}`);
      expect(res.status).toBe(200);
      const { redirectTo } = await res.json<{ redirectTo: string }>();
      const back = new URL(redirectTo);
      expect(back.searchParams.get("error"), String(confidential)).toBe("invalid_request");
      // Nor does Allow give a code for it.
      const allowed = await decide(alice, query.toString(), true);
      expect(allowed.searchParams.has("code")).toBe(false);
    }
  });

  it("an unknown client, or a redirect URI it did not register → 400 on the page, never a redirect", async () => {
    const client = await registerClient(tokenEnv);
    const { challenge } = await pkce();
    for (const request of [
      authorizeQuery({ ...client, clientId: "no-such-client" }, challenge),
      authorizeQuery({ ...client, redirectUri: "https://attacker.example/callback" }, challenge),
    ]) {
      await expectError(await alice(`/api/oauth/authorize?request=${encodeURIComponent(request)}`), 400, "invalid_request");
      await expectError(await alice("/api/oauth/authorize", { body: { request, allow: true } }), 400, "invalid_request");
    }
  });

  it("a registration with a redirect URI that is neither https nor loopback is refused", async () => {
    const res = await callApp(tokenEnv, "/oauth/register", { body: { client_name: "x", redirect_uris: ["http://attacker.example/cb"], token_endpoint_auth_method: "none" } });
    expect(res.status).toBe(400);
  });
});

describe("tokens /mcp refuses", () => {
  let client: Client;
  beforeAll(async () => {
    client = await registerClient(tokenEnv);
  });

  it("an unknown bearer token → 401 invalid_token with the challenge", async () => {
    const res = await initialize(tokenEnv, bearer("alice:nogrant:nosecret"));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(res.headers.get("www-authenticate")).toContain(`resource_metadata="${RESOURCE_METADATA}"`);
  });

  it("a bad API key → 401 in the app's error shape", async () => {
    for (const headers of [bearer("eo_not-a-key"), { "x-api-key": "eo_not-a-key" }, { "x-api-key": "anything" }]) {
      await expectError(await initialize(tokenEnv, headers), 401, "unauthorized");
    }
  });

  it("a revoked access token → 401", async () => {
    const tokens = await connect(tokenEnv, alice, client);
    expect((await initialize(tokenEnv, bearer(tokens.access_token))).status).toBe(200);
    const revoked = await callApp(tokenEnv, "/oauth/token", form({ token: tokens.access_token, client_id: client.clientId }));
    expect(revoked.status).toBe(200);
    expect((await initialize(tokenEnv, bearer(tokens.access_token))).status).toBe(401);
  });

  it("an expired access token → 401", async () => {
    const tokens = await connect(tokenEnv, alice, client);
    expect((await initialize(tokenEnv, bearer(tokens.access_token))).status).toBe(200);
    // An hour on: the token's record says it expired (KV drops it by its TTL later).
    const [subject, grantId] = tokens.access_token.split(":");
    const { keys } = await env.OAUTH_KV.list({ prefix: `token:${subject}:${grantId}:` });
    expect(keys.length).toBeGreaterThan(0);
    for (const { name } of keys) {
      const record = await env.OAUTH_KV.get<Record<string, unknown>>(name, "json");
      await env.OAUTH_KV.put(name, JSON.stringify({ ...record, expiresAt: Math.floor(Date.now() / 1000) - 1 }));
    }
    expect((await initialize(tokenEnv, bearer(tokens.access_token))).status).toBe(401);
  });

  it("a token is bound to its origin's resource: another host of the same Worker refuses it", async () => {
    const tokens = await connect(tokenEnv, alice, client);
    const elsewhere = new Request("https://other.test/mcp", { method: "POST", headers: { ...bearer(tokens.access_token), "content-type": "application/json" }, body: "{}" });
    const res = await app.fetch(elsewhere, tokenEnv, { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('resource_metadata="https://other.test/.well-known/oauth-protected-resource/mcp"');
  });

  it("a refresh token is not an access token", async () => {
    const tokens = await connect(tokenEnv, alice, client);
    expect((await initialize(tokenEnv, bearer(tokens.refresh_token))).status).toBe(401);
  });
});

describe("secrets stay where they belong", () => {
  const lines: string[] = [];
  afterEach(() => vi.restoreAllMocks());

  it("a client's secret, the code and the tokens are in no log line and no D1 row", async () => {
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    }
    const client = await registerClient(tokenEnv, { confidential: true });
    expect(client.clientSecret).toBeTruthy();
    const { verifier, challenge } = await pkce();
    const back = await decide(alice, authorizeQuery(client, challenge), true);
    const code = back.searchParams.get("code")!;
    // A failure or two on the way, so the error lines are among those checked.
    await exchangeCode(tokenEnv, client, code, (await pkce()).verifier);
    await exchangeCode(tokenEnv, { ...client, clientSecret: "wrong" }, code, verifier);
    const res = await exchangeCode(tokenEnv, client, code, verifier);
    expect(res.status, await res.clone().text()).toBe(200);
    const tokens = await res.json<{ access_token: string; refresh_token: string }>();
    await initialize(tokenEnv, bearer(tokens.access_token));
    await initialize(tokenEnv, bearer(`${tokens.access_token}x`));
    vi.restoreAllMocks();

    const secrets = [client.clientSecret!, code, tokens.access_token, tokens.refresh_token];
    const secretParts = secrets.map((s) => s.split(":").pop()!);
    const logged = lines.join("\n");
    for (const s of secretParts) expect(logged).not.toContain(s);

    const tables = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'").all<{ name: string }>();
    expect(tables.results.length).toBeGreaterThan(0);
    for (const { name } of tables.results) {
      const rows = JSON.stringify((await env.DB.prepare(`SELECT * FROM "${name}"`).all()).results);
      for (const s of secretParts) expect(rows, name).not.toContain(s);
    }

    // The library keeps only hashes in KV, and the grant's props encrypted.
    const { keys } = await env.OAUTH_KV.list();
    for (const { name } of keys) {
      const value = (await env.OAUTH_KV.get(name)) ?? "";
      for (const s of secretParts) expect(`${name} ${value}`, name).not.toContain(s);
      expect(value).not.toContain(users.alice.token);
    }
  });
});
