// An MCP server's OAuth sign-in in a real browser, in token mode and in access mode: the server added
// on Settings › Connections asks for a sign-in; its Sign in button goes to the test server's
// authorization page, which sends the browser back to GET /api/mcp/callback with no bearer token (in
// token mode the page's token is not in a redirect); the callback, authorized by its state alone,
// brings the user back to Connections signed in, and the model's call of the server's tool runs with
// the token it got. Each mode is an app of its own here (started from the suite's bundle), both on the
// fake upstream as their model; access mode's team is a key pair and a certs server of this file.
import assert from "node:assert/strict";
import { createSign, generateKeyPairSync, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import { startApp } from "../../scripts/wrangler-app.mjs";
import { marker, screenshot, script, send, until, UPSTREAM_URL, useBrowser, waitForChatReady, waitForReply } from "./helpers.mjs";
import { MCP_URL, mcpCalls } from "./mcp.mjs";

const { it, newPage } = useBrowser();

const dir = process.env.APP_BUNDLE_DIR;
const config = process.env.APP_BUNDLE_CONFIG ?? null;
const childEnv = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" };
const model = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: UPSTREAM_URL, MCP_ALLOW_LOCAL: "1" };
const TOKEN = `tok-oauth-${randomUUID().slice(0, 8)}`;
const AUD = "aud-mcp-oauth";
const b64url = (data) => Buffer.from(data).toString("base64url");

// Access mode's team: a key pair, its certs endpoint, and a signed JWT for one user.
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const certs = createServer((req, res) => {
  if (req.url !== "/cdn-cgi/access/certs") return res.writeHead(404).end();
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [{ ...publicKey.export({ format: "jwk" }), kid: "k1", alg: "RS256", use: "sig" }] }));
});

function accessJwt(team, email) {
  const now = Math.floor(Date.now() / 1000);
  const signed = `${b64url(JSON.stringify({ alg: "RS256", kid: "k1", typ: "JWT" }))}.${b64url(JSON.stringify({ iss: team, aud: [AUD], email, iat: now, exp: now + 3600 }))}`;
  return `${signed}.${createSign("RSA-SHA256").update(signed).sign(privateKey, "base64url")}`;
}

/** Each mode's app, how a request and a page sign in to it. */
const modes = {};

async function start(name, vars) {
  return startApp({ name, dir, config, env: childEnv, vars, logPath: join(process.cwd(), "test-results", `browser-wrangler-${name}.log`) });
}

describe("MCP OAuth sign-in in the browser", { skip: !dir && "APP_BUNDLE_DIR is not set" }, () => {
  before(async () => {
    await new Promise((r) => certs.listen(0, "127.0.0.1", r));
    const team = `http://127.0.0.1:${certs.address().port}`;
    const [tokenApp, accessApp] = await Promise.all([
      start("oauth-token", { ...model, AUTH_MODE: "token", AUTH_TOKENS: `${TOKEN}:olga` }),
      start("oauth-access", { ...model, AUTH_MODE: "access", ACCESS_TEAM_DOMAIN: team, ACCESS_AUD: AUD }),
    ]);
    const jwt = accessJwt(team, "ada@example.com");
    modes.token = {
      app: tokenApp,
      headers: { authorization: `Bearer ${TOKEN}` },
      async signIn(page) {
        await page.goto(`${tokenApp.url}/`);
        await page.getByTestId("token-input").fill(TOKEN);
        await page.getByTestId("sign-in-submit").click();
        await page.getByTestId("sign-in").waitFor({ state: "detached" });
      },
    };
    modes.access = {
      app: accessApp,
      headers: { "cf-access-jwt-assertion": jwt },
      // Access sets its cookie on the app's host; the browser sends it on every request there.
      signIn: (page) => page.context().addCookies([{ name: "CF_Authorization", value: jwt, url: accessApp.url }]),
    };
  });
  after(async () => {
    await Promise.all(Object.values(modes).map((m) => m.app.stop()));
    await new Promise((r) => certs.close(r));
  });

  for (const mode of ["token", "access"]) {
    it(`${mode} mode: signs in to the server through its authorization page and the callback, then the model calls its tool`, async () => {
      const { app, headers, signIn } = modes[mode];
      const { page } = await newPage({ viewport: { width: 1280, height: 1100 } });
      await signIn(page);
      await page.goto(`${app.url}/settings/connections`);
      await page.getByTestId("connections-page").waitFor();

      const name = `authd${mode === "token" ? "t" : "a"}`;
      const form = page.getByTestId("mcp-add-form");
      await form.getByTestId("mcp-name").fill(name);
      await form.getByTestId("mcp-url").fill(`${MCP_URL}/auth/mcp`);
      await form.getByTestId("mcp-add").click();
      const card = page.getByTestId("mcp-server").filter({ hasText: name });
      await card.waitFor({ timeout: 20_000 });
      assert.equal(await card.getAttribute("data-status"), "authenticating");

      // The authorization server approves at once and redirects to the app's callback, which redirects here.
      await card.getByTestId("mcp-sign-in").click();
      await page.waitForURL((url) => url.pathname === "/settings/connections" && url.origin === app.url, { timeout: 20_000 });
      const notice = page.getByTestId("mcp-sign-in-notice");
      await notice.waitFor();
      // The notice names the server once the page has its list (it says "Signed in" until then).
      const said = () => notice.innerText().then((t) => t.split("\n")[0].trim());
      await until(async () => (await said()) === `Signed in to ${name}: its tools are ready.`, { message: "the notice never named the server" });
      const signedIn = page.getByTestId("mcp-server").filter({ hasText: name });
      await signedIn.and(page.locator('[data-status="connected"]')).waitFor();
      await screenshot(page, `51-mcp-oauth-${mode}`);

      // The model calls the server's echo; the server gets it with the token the sign-in gave.
      const res = await fetch(`${app.url}/api/threads`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ name: `oauth ${mode}` }) });
      assert.equal(res.status, 201);
      const { thread } = await res.json();
      const m = marker(`oauth-${mode}`);
      const id = `toolu_oauth_${m.slice(-10, -2)}`;
      const answer = `Echoed through ${name}.`;
      await script(m, [{ kind: "tool_use", tools: [{ name: `${name}__echo`, input: { text: `signed ${m}` }, id }] }, { kind: "text", text: answer }]);
      await page.goto(`${app.url}/t/${thread.id}`);
      await waitForChatReady(page);
      await send(page, `Echo ${m}`);
      await waitForReply(page, answer);
      const result = page.locator(`[data-testid="tool-result"][data-tool-use-id="${id}"]`);
      assert.equal(await result.getAttribute("data-error"), null);
      assert.match(await result.innerText(), new RegExp(`echo: signed ${m.replace(/[[\]]/g, "\\$&")}`));
      const calls = (await mcpCalls("echo")).filter((c) => c.server === "auth" && c.args.text === `signed ${m}`);
      assert.equal(calls.length, 1);
      assert.match(calls[0].headers.authorization, /^Bearer \S+/);
      assert.deepEqual(page.errors, []);
    });
  }
});
