// Self-test of the test MCP servers, driven through the REAL @modelcontextprotocol/sdk client
// (Streamable HTTP, legacy SSE, and the OAuth flow of client/auth.js) from Node.
//   node --test test/mcp/server.selftest.mjs      (npm run test:mcp-server)

import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { RED_DOT_PNG_BASE64, REMOTE_WORDS, WEIRD_TOOL_NAME, startMcpServers } from "./server.mjs";

/** @type {Awaited<ReturnType<typeof startMcpServers>>} */
let mcp;
/** @type {Client[]} */
let open = [];

before(async () => {
  mcp = await startMcpServers();
});
beforeEach(() => mcp.reset());
after(async () => {
  await Promise.allSettled(open.map((c) => c.close()));
  await mcp.close();
});

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

function newClient() {
  const client = new Client({ name: "selftest", version: "1.0.0" });
  open.push(client);
  return client;
}

/** @param {string} path @param {import("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPClientTransportOptions} [opts] */
async function connect(path, opts) {
  const client = newClient();
  const transport = new StreamableHTTPClientTransport(new URL(`${mcp.url}${path}`), opts);
  await client.connect(transport);
  return { client, transport };
}

/** @param {any} result */
function textOf(result) {
  return result.content.filter((/** @type {any} */ c) => c.type === "text").map((/** @type {any} */ c) => c.text).join("");
}

/** @param {() => boolean} cond @param {number} [ms] */
async function waitFor(cond, ms = 3000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await sleep(20);
  }
}

const TOOL_SET = ["echo", "add", "stats", "delete_item", "fail", "slow", "image", "screenshots", WEIRD_TOOL_NAME, "changes"];

/**
 * An in-memory OAuthClientProvider: what the app keeps per user and server, kept in a Map here.
 * `redirectToAuthorization` only remembers the URL; the test "is the browser" and follows it.
 */
class MemoryProvider {
  /** @param {{ confidential?: boolean }} [opts] */
  constructor({ confidential = false } = {}) {
    this.confidential = confidential;
    /** @type {any} */ this.client = undefined;
    /** @type {any} */ this.saved = undefined;
    /** @type {string | undefined} */ this.verifier = undefined;
    /** @type {URL | undefined} */ this.authorizationUrl = undefined;
    /** @type {any} */ this.discovery = undefined;
    this.lastState = "";
    this.redirects = 0;
  }
  get redirectUrl() {
    return "http://127.0.0.1:9/oauth/callback";
  }
  get clientMetadata() {
    return {
      client_name: "selftest",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.confidential ? "client_secret_basic" : "none",
    };
  }
  state() {
    this.lastState = `st_${Math.random().toString(36).slice(2)}`;
    return this.lastState;
  }
  clientInformation() { return this.client; }
  saveClientInformation(/** @type {any} */ info) { this.client = info; }
  tokens() { return this.saved; }
  saveTokens(/** @type {any} */ tokens) { this.saved = tokens; }
  redirectToAuthorization(/** @type {URL} */ url) {
    this.authorizationUrl = url;
    this.redirects++;
  }
  saveCodeVerifier(/** @type {string} */ v) { this.verifier = v; }
  codeVerifier() {
    if (!this.verifier) throw new Error("no code verifier saved");
    return this.verifier;
  }
  saveDiscoveryState(/** @type {any} */ s) { this.discovery = s; }
  discoveryState() { return this.discovery; }
  invalidateCredentials(/** @type {string} */ scope) {
    if (scope === "all" || scope === "client") this.client = undefined;
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }
}

/** The user's browser: follows the authorization URL once, reads code and state off the redirect. */
async function approve(/** @type {URL} */ authorizationUrl) {
  const res = await fetch(authorizationUrl, { redirect: "manual" });
  assert.equal(res.status, 302);
  const location = new URL(/** @type {string} */ (res.headers.get("location")));
  assert.equal(`${location.origin}${location.pathname}`, "http://127.0.0.1:9/oauth/callback");
  return { code: location.searchParams.get("code"), state: location.searchParams.get("state"), error: location.searchParams.get("error") };
}

// ---------------------------------------------------------------------------
// /tools/mcp
// ---------------------------------------------------------------------------

test("/tools/mcp lists the tool set with its annotations", async () => {
  const { client } = await connect("/tools/mcp");
  assert.equal(client.getServerVersion()?.name, "test-tools");
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_SET].sort());
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.equal(byName.echo.annotations?.readOnlyHint, true);
  assert.equal(byName.add.annotations?.readOnlyHint, true);
  assert.equal(byName.delete_item.annotations?.destructiveHint, true);
  assert.equal(byName.delete_item.annotations?.readOnlyHint, undefined);
  assert.deepEqual(byName.echo.inputSchema.required, ["text"]);
  assert.equal(/** @type {any} */ (byName.add.inputSchema.properties).a.type, "number");
  assert.equal(byName.fail.inputSchema.type, "object");
});

test("/tools/mcp: each tool answers, and every call is recorded with its headers", async () => {
  const { client } = await connect("/tools/mcp", { requestInit: { headers: { "X-Api-Key": "k-123" } } });
  assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "hi" } })), "echo: hi");
  assert.equal(textOf(await client.callTool({ name: "add", arguments: { a: 2, b: 40 } })), "42");
  assert.equal(textOf(await client.callTool({ name: "delete_item", arguments: { id: "x1" } })), "deleted x1");

  const failed = await client.callTool({ name: "fail", arguments: {} });
  assert.equal(failed.isError, true);
  assert.equal(textOf(failed), "it failed on purpose");

  assert.equal(textOf(await client.callTool({ name: "slow", arguments: { ms: 30 } })), "done");

  const image = /** @type {any} */ (await client.callTool({ name: "image", arguments: {} }));
  assert.deepEqual(image.content[0], { type: "text", text: "a red dot" });
  assert.equal(image.content[1].type, "image");
  assert.equal(image.content[1].mimeType, "image/png");
  assert.equal(image.content[1].data, RED_DOT_PNG_BASE64);
  assert.deepEqual([...Buffer.from(image.content[1].data, "base64").subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10]);

  assert.equal(textOf(await client.callTool({ name: WEIRD_TOOL_NAME, arguments: {} })), "weird");

  // An invalid argument is a tool error, and the tool never ran.
  const bad = await client.callTool({ name: "add", arguments: { a: "two", b: 1 } });
  assert.equal(bad.isError, true);

  assert.deepEqual(mcp.calls.map((c) => c.tool), ["echo", "add", "delete_item", "fail", "slow", "image", WEIRD_TOOL_NAME]);
  const del = mcp.calls.find((c) => c.tool === "delete_item");
  assert.equal(del?.server, "tools");
  assert.deepEqual(del?.args, { id: "x1" });
  assert.equal(del?.headers["x-api-key"], "k-123");
  assert.ok(del?.sessionId);
  assert.ok(mcp.calls.every((c) => c.headers["x-api-key"] === "k-123"));

  mcp.reset();
  assert.equal(mcp.calls.length, 0);
});

test("/tools/mcp: slow outlasts a client timeout", async () => {
  const { client } = await connect("/tools/mcp");
  await assert.rejects(
    client.callTool({ name: "slow", arguments: { ms: 5000 } }, undefined, { timeout: 100 }),
    (/** @type {any} */ err) => err instanceof McpError && err.code === ErrorCode.RequestTimeout,
  );
  assert.deepEqual(mcp.calls.map((c) => c.tool), ["slow"]);
});

test("/tools/mcp: changes adds added_later to this session and announces it", async () => {
  const { client } = await connect("/tools/mcp");
  let announced = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void announced++);
  assert.equal(textOf(await client.callTool({ name: "changes", arguments: {} })), "added added_later");
  // The default: on the call's own response stream, so it has arrived with the result.
  assert.equal(announced, 1);
  const names = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes("added_later"));
  assert.equal(textOf(await client.callTool({ name: "added_later", arguments: {} })), "added later");

  // Another session does not see it.
  const { client: other } = await connect("/tools/mcp");
  assert.ok(!(await other.listTools()).tools.some((t) => t.name === "added_later"));

  // via "standalone": on the session's GET stream, which the SDK client opens after initialization
  // (asynchronously, so ask until one arrives).
  const before = announced;
  const deadline = Date.now() + 3000;
  while (announced === before && Date.now() < deadline) {
    await client.callTool({ name: "changes", arguments: { via: "standalone" } });
    await sleep(50);
  }
  assert.ok(announced > before, "a list_changed arrived on the standalone stream");
});

test("/tools/mcp: DELETE ends the session", async () => {
  const { transport } = await connect("/tools/mcp");
  const sessions = mcp.sessionCount();
  await transport.terminateSession();
  assert.equal(mcp.sessionCount(), sessions - 1);
  const res = await fetch(`${mcp.url}/tools/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": "nope" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  assert.equal(res.status, 404);
});

// ---------------------------------------------------------------------------
// /many/mcp, /sse, failures
// ---------------------------------------------------------------------------

test("/many/mcp has 150 tools", async () => {
  const { client } = await connect("/many/mcp");
  const { tools, nextCursor } = await client.listTools();
  assert.equal(tools.length, 150);
  assert.equal(nextCursor, undefined);
  assert.equal(tools[0].name, "t000");
  assert.equal(tools[149].name, "t149");
  assert.equal(textOf(await client.callTool({ name: "t123", arguments: {} })), "t123");
  assert.deepEqual(mcp.calls.map((c) => [c.server, c.tool]), [["many", "t123"]]);
});

test("/sse: Streamable HTTP is refused (405), the legacy SSE transport works", async () => {
  const refused = newClient();
  await assert.rejects(
    refused.connect(new StreamableHTTPClientTransport(new URL(mcp.sseUrl))),
    (/** @type {any} */ err) => err instanceof StreamableHTTPError && err.code === 405,
  );

  const client = newClient();
  await client.connect(new SSEClientTransport(new URL(mcp.sseUrl), { requestInit: { headers: { "x-api-key": "sse-key" } } }));
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_SET].sort());
  assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "old" } })), "echo: old");
  let announced = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void announced++);
  await client.callTool({ name: "changes", arguments: {} });
  await waitFor(() => announced === 1);
  assert.deepEqual(mcp.calls.map((c) => [c.server, c.tool]), [["sse", "echo"], ["sse", "changes"]]);
  assert.equal(mcp.calls[0].headers["x-api-key"], "sse-key");
});

test("/garbage/mcp and /down/mcp fail to connect", async () => {
  const garbage = await fetch(`${mcp.url}/garbage/mcp`, { method: "POST", body: "{}" });
  assert.equal(garbage.status, 200);
  assert.match(garbage.headers.get("content-type") ?? "", /^text\/html/);
  assert.equal(await garbage.text(), "<html>not mcp</html>");

  await assert.rejects(newClient().connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/garbage/mcp`))), /content type/i);
  await assert.rejects(newClient().connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/down/mcp`))));
  await assert.rejects(fetch(`${mcp.url}/down/mcp`), TypeError);
});

// ---------------------------------------------------------------------------
// Misbehaving servers
// ---------------------------------------------------------------------------

test("/redirect/mcp redirects as asked; /seen records what reached it; /says/mcp answers its words", async () => {
  const to = `${mcp.url}/seen/k1/mcp`;
  const res = await fetch(`${mcp.url}/redirect/mcp?status=303&to=${encodeURIComponent(to)}`, { method: "POST", body: "{}", redirect: "manual" });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), to);
  await fetch(to, { method: "POST", headers: { "x-api-key": "k" }, body: "hello" });
  const { seen } = mcp.hostile.stats("k1");
  assert.deepEqual(seen.map((r) => [r.method, r.headers["x-api-key"], r.body]), [["POST", "k", "hello"]]);
  const says = await fetch(`${mcp.url}/says/mcp`, { method: "POST", body: "{}" });
  assert.equal(says.status, 500);
  assert.match(await says.text(), new RegExp(REMOTE_WORDS.slice(0, 12)));
});

test("/pages/<key>/mcp pages forever; /flood/<key>/mcp sends as many list_changed as asked", async () => {
  const { client } = await connect("/pages/k2/mcp?kb=1");
  let cursor;
  for (let i = 0; i < 5; i++) {
    const page = await client.listTools(cursor ? { cursor } : {});
    assert.equal(page.tools.length, 1);
    assert.ok(page.tools[0].description && page.tools[0].description.length >= 1000);
    assert.ok(page.nextCursor);
    cursor = page.nextCursor;
  }
  assert.equal(mcp.hostile.stats("k2").lists, 5);

  const flooded = await connect("/flood/k3/mcp");
  let announced = 0;
  flooded.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void announced++);
  await waitFor(() => mcp.hostile.stats("k3").streams === 1);
  assert.deepEqual((await flooded.client.listTools()).tools.map((t) => t.name), ["echo"]);
  const sent = await (await fetch(`${mcp.url}/hostile/k3/flood?n=50`)).json();
  assert.equal(sent.sent, 50);
  await waitFor(() => announced === 50);
  assert.equal((await (await fetch(`${mcp.url}/hostile/k3`)).json()).lists, 1);
});

// ---------------------------------------------------------------------------
// /auth/mcp: OAuth 2.1
// ---------------------------------------------------------------------------

test("/auth/mcp: 401 with resource metadata; the metadata documents", async () => {
  const res = await fetch(`${mcp.url}/auth/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
  });
  assert.equal(res.status, 401);
  assert.equal(res.headers.get("www-authenticate"), `Bearer resource_metadata="${mcp.url}/.well-known/oauth-protected-resource/auth/mcp"`);

  const bad = await fetch(`${mcp.url}/auth/mcp`, { method: "POST", headers: { authorization: "Bearer nope" }, body: "{}" });
  assert.equal(bad.status, 401);
  assert.match(bad.headers.get("www-authenticate") ?? "", /^Bearer resource_metadata="[^"]+", error="invalid_token"/);

  for (const path of ["/.well-known/oauth-protected-resource/auth/mcp", "/.well-known/oauth-protected-resource"]) {
    const prm = await (await fetch(`${mcp.url}${path}`)).json();
    assert.equal(prm.resource, `${mcp.url}/auth/mcp`);
    assert.deepEqual(prm.authorization_servers, [`${mcp.url}/as`]);
  }
  const meta = await (await fetch(`${mcp.url}/.well-known/oauth-authorization-server/as`)).json();
  assert.equal(meta.issuer, `${mcp.url}/as`);
  assert.equal(meta.authorization_endpoint, `${mcp.url}/as/authorize`);
  assert.equal(meta.token_endpoint, `${mcp.url}/as/token`);
  assert.equal(meta.registration_endpoint, `${mcp.url}/as/register`);
  assert.deepEqual(meta.code_challenge_methods_supported, ["S256"]);
});

test("/auth/mcp: the whole flow through client/auth.js auth(), then a refresh after the token expires", async () => {
  const provider = new MemoryProvider();
  const serverUrl = `${mcp.url}/auth/mcp`;

  // Discovery → registration → the authorization URL.
  assert.equal(await auth(provider, { serverUrl }), "REDIRECT");
  assert.ok(provider.client?.client_id);
  assert.equal(provider.client.client_secret, undefined, "a public client gets no secret");
  const authorizationUrl = /** @type {URL} */ (provider.authorizationUrl);
  assert.equal(`${authorizationUrl.origin}${authorizationUrl.pathname}`, `${mcp.url}/as/authorize`);

  // The user's browser follows it; the auto-approving server redirects back with a code.
  const { code, state } = await approve(authorizationUrl);
  assert.ok(code);
  assert.equal(state, provider.lastState);
  const seen = mcp.auth.lastAuthorize;
  assert.equal(seen?.client_id, provider.client.client_id);
  assert.equal(seen?.code_challenge_method, "S256");
  assert.equal(seen?.resource, `${mcp.url}/auth/mcp`, "the SDK sends the resource indicator");

  // The code for tokens.
  assert.equal(await auth(provider, { serverUrl, authorizationCode: /** @type {string} */ (code) }), "AUTHORIZED");
  assert.ok(provider.saved?.access_token);
  assert.ok(provider.saved?.refresh_token);
  assert.equal(mcp.auth.lastTokenRequest?.grant_type, "authorization_code");

  const { client } = await connect("/auth/mcp", { authProvider: provider });
  assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), [...TOOL_SET].sort());
  assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "secured" } })), "echo: secured");
  assert.equal(mcp.calls.at(-1)?.server, "auth");
  assert.equal(mcp.calls.at(-1)?.headers.authorization, `Bearer ${provider.saved.access_token}`);

  // Tokens of 1 s: the current one is stale at once; the client refreshes on the 401 and retries.
  mcp.auth.setTokenTtl(1);
  await sleep(1100);
  const oldToken = provider.saved.access_token;
  assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "again" } })), "echo: again");
  assert.ok(mcp.auth.refreshes >= 1);
  assert.notEqual(provider.saved.access_token, oldToken);
  assert.equal(provider.redirects, 1, "no new authorization was needed");
});

test("/auth/mcp: the transport drives the flow (finishAuth), and revokeAll forces a new authorization", async () => {
  const provider = new MemoryProvider({ confidential: true });
  const url = new URL(`${mcp.url}/auth/mcp`);
  const first = newClient();
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await assert.rejects(first.connect(transport), UnauthorizedError);
  assert.ok(provider.client?.client_secret, "a confidential client gets a secret");

  const { code } = await approve(/** @type {URL} */ (provider.authorizationUrl));
  await transport.finishAuth(/** @type {string} */ (code));
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  assert.equal(textOf(await client.callTool({ name: "add", arguments: { a: 1, b: 2 } })), "3");

  // Every token revoked: the refresh fails (invalid_grant), so the client must send the user again.
  mcp.auth.revokeAll();
  await assert.rejects(client.callTool({ name: "add", arguments: { a: 1, b: 2 } }), UnauthorizedError);
  assert.equal(provider.redirects, 2);
  assert.deepEqual(mcp.calls.map((c) => c.tool), ["add"]);
});

test("/as: PKCE, redirect URI and client are checked", async () => {
  const reg = await fetch(`${mcp.url}/as/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:9/oauth/callback"], token_endpoint_auth_method: "none" }),
  });
  assert.equal(reg.status, 201);
  const client = await reg.json();
  assert.deepEqual(client.redirect_uris, ["http://127.0.0.1:9/oauth/callback"]);

  const verifier = "v".repeat(50);
  const { createHash } = await import("node:crypto");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const authorizeUrl = (/** @type {Record<string, string>} */ extra) =>
    new URL(`${mcp.url}/as/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: "http://127.0.0.1:9/oauth/callback",
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "s1",
      ...extra,
    })}`);

  const wrongRedirect = await fetch(authorizeUrl({ redirect_uri: "http://evil.test/cb" }), { redirect: "manual" });
  assert.equal(wrongRedirect.status, 400);

  mcp.auth.setApprove(false);
  assert.equal((await approve(authorizeUrl({}))).error, "access_denied");
  mcp.auth.setApprove(true);

  const token = (/** @type {Record<string, string>} */ form) =>
    fetch(`${mcp.url}/as/token`, { method: "POST", body: new URLSearchParams(form) });
  const { code } = await approve(authorizeUrl({}));
  const wrong = await token({ grant_type: "authorization_code", code: /** @type {string} */ (code), code_verifier: "w".repeat(50), redirect_uri: "http://127.0.0.1:9/oauth/callback", client_id: client.client_id });
  assert.equal(wrong.status, 400);
  assert.equal((await wrong.json()).error, "invalid_grant");

  const { code: code2 } = await approve(authorizeUrl({}));
  const ok = await token({ grant_type: "authorization_code", code: /** @type {string} */ (code2), code_verifier: verifier, redirect_uri: "http://127.0.0.1:9/oauth/callback", client_id: client.client_id });
  assert.equal(ok.status, 200);
  const tokens = await ok.json();
  assert.equal(tokens.token_type, "Bearer");
  assert.equal(tokens.expires_in, 3600);
  // A code is single-use.
  const again = await token({ grant_type: "authorization_code", code: /** @type {string} */ (code2), code_verifier: verifier, redirect_uri: "http://127.0.0.1:9/oauth/callback", client_id: client.client_id });
  assert.equal(again.status, 400);

  const refreshed = await token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: client.client_id });
  assert.equal(refreshed.status, 200);
  assert.equal(mcp.auth.refreshes, 1);

  const unknown = await token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: "nobody" });
  assert.equal(unknown.status, 401);
});
