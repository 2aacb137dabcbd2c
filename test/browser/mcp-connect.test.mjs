// Connecting an MCP client to the app's MCP server with OAuth, as Claude or ChatGPT does: the client
// registers itself (from node here), sends the user's browser to the authorization endpoint, the
// signed-in user sees the consent page and allows (or denies), and the browser lands on the client's
// redirect URI (a small server this test starts) with a code that the client exchanges for a token
// which /mcp takes.
import AxeBuilder from "@axe-core/playwright";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { after, before, describe } from "node:test";
import { APP_URL, OFFLINE_APP_URL, api, screenshot, until, useBrowser } from "./helpers.mjs";
import { OFFLINE_USERS } from "./offline-app.mjs";

const { it, newPage } = useBrowser();

/** The client's side: its redirect URI's server, which keeps what the browser brought back. */
let callback;
before(async () => {
  const hits = [];
  const server = createServer((req, res) => {
    hits.push(new URL(req.url ?? "/", "http://callback"));
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>Connected</title><main><h1>Back in the client</h1></main>");
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  callback = { server, hits, uri: `http://127.0.0.1:${server.address().port}/oauth/callback` };
});
after(() => new Promise((r) => callback.server.close(r)));

const base64url = (bytes) => Buffer.from(bytes).toString("base64url");

/** Dynamic client registration, as the connector makes it on first use. */
async function register(app, name) {
  const res = await fetch(`${app}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: name, redirect_uris: [callback.uri], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()).client_id;
}

/** The authorization URL the client opens in the user's browser, with its PKCE verifier and state. */
async function authorization(app, name) {
  const clientId = await register(app, name);
  const verifier = base64url(randomBytes(32));
  const state = base64url(randomBytes(12));
  const meta = await (await fetch(`${app}/.well-known/oauth-authorization-server`)).json();
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: callback.uri,
    code_challenge: base64url(createHash("sha256").update(verifier).digest()),
    code_challenge_method: "S256",
    state,
    scope: "mcp",
    resource: `${app}/mcp`,
  });
  return { clientId, verifier, state, url: `${meta.authorization_endpoint}?${query}`, tokenEndpoint: meta.token_endpoint };
}

/** What the browser brought to the client's redirect URI for `state`. */
const returned = (state) => until(() => callback.hits.find((u) => u.searchParams.get("state") === state), { message: "the browser did not come back to the client" });

describe("connecting an MCP client with OAuth", () => {
  it("a signed-out user signs in, sees who asks and where access goes, allows; the code exchanges for a token /mcp takes", async () => {
    const { page } = await newPage();
    const auth = await authorization(OFFLINE_APP_URL, "Claude (test)");
    await page.goto(auth.url);
    // Token mode: what the app shows every signed-out user, then the consent page at the same address.
    await page.getByTestId("token-input").fill(OFFLINE_USERS.alice.token);
    await page.getByTestId("sign-in-submit").click();
    const consent = page.locator('[data-testid="oauth-consent"][data-step="ask"]');
    await consent.waitFor();
    assert.equal(await page.getByTestId("consent-client").innerText(), "Claude (test)");
    assert.equal(await page.getByTestId("consent-user").innerText(), "alice");
    assert.equal(await page.getByTestId("consent-redirect-host").innerText(), "127.0.0.1");
    assert.match(await page.getByTestId("consent-access").innerText(), /threads[\s\S]*projects/i);
    assert.match(await page.getByTestId("consent-loopback").innerText(), /on your computer/);
    const { violations } = await new AxeBuilder({ page }).analyze();
    assert.deepEqual(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id), []);
    await screenshot(page, "70-mcp-connect-consent");

    await page.getByTestId("consent-allow").click();
    const back = await returned(auth.state);
    await page.waitForURL((url) => url.href.startsWith(callback.uri));
    assert.equal(back.pathname, "/oauth/callback");
    assert.equal(back.searchParams.get("iss"), OFFLINE_APP_URL);
    const code = back.searchParams.get("code");
    assert.ok(code, "no code came back");

    const tokenRes = await fetch(auth.tokenEndpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: callback.uri, client_id: auth.clientId, code_verifier: auth.verifier }),
    });
    assert.equal(tokenRes.status, 200, await tokenRes.clone().text());
    const tokens = await tokenRes.json();
    assert.equal(tokens.scope, "mcp");

    const { thread } = await api("/api/threads", { app: OFFLINE_APP_URL, token: OFFLINE_USERS.alice.token, body: { name: "connected from a client" } });
    const mcp = (body) =>
      fetch(`${OFFLINE_APP_URL}/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(body),
      });
    const init = await mcp({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "browser-test", version: "1.0.0" } } });
    assert.equal(init.status, 200, await init.clone().text());
    assert.match(await init.text(), /serverInfo/);
    const listed = await mcp({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_threads", arguments: {} } });
    assert.match(await listed.text(), new RegExp(thread.id));
    assert.deepEqual(page.errors, []);
  });

  it("Deny sends the browser back to the client with access_denied, and no code", async () => {
    const { page } = await newPage({ viewport: { width: 390, height: 780 } });
    const auth = await authorization(APP_URL, "A connector I did not start");
    await page.goto(auth.url);
    await page.locator('[data-testid="oauth-consent"][data-step="ask"]').waitFor();
    assert.equal(await page.getByTestId("consent-user").innerText(), "local");
    await screenshot(page, "71-mcp-connect-consent-phone");
    await page.getByTestId("consent-deny").click();
    const back = await returned(auth.state);
    assert.equal(back.searchParams.get("error"), "access_denied");
    assert.equal(back.searchParams.has("code"), false);
    assert.deepEqual(page.errors, []);
  });

  it("a page opened without a request, or with a client the server does not know, says so and sends the browser nowhere", async () => {
    const { page } = await newPage();
    await page.goto(`${APP_URL}/oauth/authorize`);
    assert.match(await page.getByTestId("consent-error").innerText(), /Open it from the app you are connecting/);
    await page.goto(`${APP_URL}/oauth/authorize?response_type=code&client_id=nobody&redirect_uri=${encodeURIComponent(callback.uri)}&code_challenge=x&code_challenge_method=S256&state=s`);
    assert.match(await page.getByTestId("consent-error").innerText(), /Invalid client_id/);
    assert.equal(new URL(page.url()).origin, APP_URL);
    assert.deepEqual(page.errors, []);
  });
});
