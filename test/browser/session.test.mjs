// Token mode on the offline app: sign-in, what each user's browser storage holds, sign-out, and the
// plugins page of a user who is not an admin. Then Access mode's sign-out, as the page sees it.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { APP_URL, OFFLINE_APP_URL, api, createThread, screenshot, signIn, until, useBrowser } from "./helpers.mjs";
import { OFFLINE_USERS } from "./offline-app.mjs";

const { it, newPage } = useBrowser();

/**
 * The suite has no Access team to sign in with: the app (AUTH_MODE=none) is shown the health
 * answer of an Access deployment, with carol signed in.
 */
async function reportAccessUser(page) {
  await page.route("**/api/health", async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    return route.fulfill({ response, json: { ...body, auth: { mode: "access", userId: "carol@example.com", admin: false } } });
  });
}

/** The page's localStorage, as an object. */
const storage = (page) => page.evaluate(() => Object.fromEntries(Object.entries(localStorage)));

describe("session", () => {
  it("asks for a token, and refuses a wrong one", async () => {
    const { page } = await newPage();
    await page.goto(OFFLINE_APP_URL);
    await page.getByTestId("sign-in").waitFor();
    await page.getByTestId("token-input").fill("not-a-token");
    await page.getByTestId("sign-in-submit").click();
    assert.match(await page.getByTestId("sign-in-error").innerText(), /not accepted/);
    assert.equal(await page.getByTestId("composer").count(), 0);
    await screenshot(page, "12-sign-in-refused");
    assert.deepEqual(page.errors, []);
  });

  it("keeps each user's drafts under their own keys, and Sign out removes them", async () => {
    const { page } = await newPage();
    const { alice, bob } = OFFLINE_USERS;
    const { thread } = await api("/api/threads", { app: OFFLINE_APP_URL, token: alice.token, body: { name: "alice's thread" } });

    await signIn(page, alice.token, `/t/${thread.id}`);
    assert.equal(await page.getByTestId("account-user").innerText(), "alice");
    await page.getByTestId("composer").fill("half a thought");
    const draftKey = `orchestrator:alice:draft:${thread.id}`;
    await until(async () => (await storage(page))[draftKey] === "half a thought", { message: "the draft was not kept" });
    const before = await storage(page);
    assert.equal(before["orchestrator:user"], "alice");
    assert.equal(before["orchestrator:alice:token"], alice.token);
    assert.deepEqual(Object.keys(before).filter((k) => !k.startsWith("orchestrator:alice:") && k !== "orchestrator:user"), []);
    // The draft survives a reload.
    await page.reload();
    await until(async () => (await page.getByTestId("composer").inputValue()) === "half a thought", { message: "the draft did not survive a reload" });

    await page.getByTestId("sign-out").click();
    await page.getByTestId("sign-in").waitFor();
    assert.deepEqual(Object.keys(await storage(page)), [], "sign-out left keys behind");
    await screenshot(page, "12-signed-out");

    // Bob sees neither alice's thread nor her draft.
    await page.getByTestId("token-input").fill(bob.token);
    await page.getByTestId("sign-in-submit").click();
    await page.getByTestId("composer").waitFor();
    assert.equal(await page.getByTestId("account-user").innerText(), "bob");
    await page.goto(`${OFFLINE_APP_URL}/t/${thread.id}`);
    await page.getByText("Thread not found").waitFor();
    await page.locator('[data-testid="thread-list"][aria-busy="false"]').waitFor({ state: "attached" }); // empty: no height
    assert.equal(await page.locator(`[data-thread-id="${thread.id}"]`).count(), 0);
    // Bob's own keys only: his token, and what he has seen of his threads (the sidebar's unread dots).
    assert.deepEqual(Object.keys(await storage(page)).sort(), ["orchestrator:bob:seen", "orchestrator:bob:token", "orchestrator:user"]);
    assert.deepEqual(page.errors, []);
  });

  it("shows plugin settings read-only to a user who is not an admin", async () => {
    const { page } = await newPage();
    await signIn(page, OFFLINE_USERS.alice.token, "/plugins");
    const row = page.locator('[data-testid="plugin-row"][data-plugin="time"]');
    await row.waitFor();
    assert.match(await page.getByTestId("plugins-read-only").innerText(), /Only an admin can change plugins/);
    assert.equal(await row.getByTestId("plugin-toggle").isDisabled(), true);
    await row.getByRole("button", { name: "Settings" }).click();
    assert.equal(await row.getByTestId("plugin-settings").isDisabled(), true);
    assert.equal(await row.getByTestId("plugin-settings-save").count(), 0);
    await screenshot(page, "12-plugins-read-only");

    // An admin gets the controls.
    const { page: admin } = await newPage();
    await signIn(admin, OFFLINE_USERS.bob.token, "/plugins");
    const adminRow = admin.locator('[data-testid="plugin-row"][data-plugin="time"]');
    await adminRow.waitFor();
    assert.equal(await adminRow.getByTestId("plugin-toggle").isDisabled(), false);
    assert.equal(await admin.getByTestId("plugins-read-only").count(), 0);
    assert.deepEqual(page.errors, []);
  });

  it("in Access mode, a session that ended (Access redirects the API to sign in) offers Sign in again", async () => {
    const { page } = await newPage();
    await reportAccessUser(page);
    const sockets = [];
    await page.routeWebSocket(/\/ws\?/, (ws) => {
      sockets.push(ws);
      ws.connectToServer();
    });
    const outside = [];
    page.on("request", (req) => !req.url().startsWith(APP_URL) && outside.push(req.url()));
    const thread = await createThread("carol's expiring thread");
    await page.goto(`${APP_URL}/t/${thread.id}`);
    await until(() => sockets.length === 1, { message: "the thread's socket did not open" });

    // Access's session ended: it now sends every request to its sign-in page, and the Worker closes
    // the socket whose JWT expired.
    await page.route("**/api/**", (route) =>
      route.fulfill({ status: 302, headers: { location: "https://team.cloudflareaccess.com/cdn-cgi/access/login/app" } }),
    );
    sockets[0].close({ code: 4001, reason: "credential expired" });
    await page.getByTestId("sign-in-again").waitFor();
    assert.deepEqual(outside, [], "the app followed Access's redirect");
    assert.equal(sockets.length, 1);
    await screenshot(page, "12-access-session-ended");
    assert.deepEqual(page.errors, []);
  });

  // Access's logout page is played by a stand-in.
  it("in Access mode, Sign out removes the user's keys and goes to Access's logout", async () => {
    const { page } = await newPage();
    await reportAccessUser(page);
    await page.route("**/cdn-cgi/access/logout", (route) => route.fulfill({ contentType: "text/html", body: "<!doctype html><p>Signed out of Access</p>" }));
    const thread = await createThread("carol's thread");
    await page.goto(`${APP_URL}/t/${thread.id}`);
    assert.equal(await page.getByTestId("account-user").innerText(), "carol@example.com");
    await page.getByTestId("composer").fill("carol's draft");
    const draftKey = `orchestrator:carol%40example.com:draft:${thread.id}`;
    await until(async () => (await storage(page))[draftKey] === "carol's draft", { message: "the draft was not kept" });
    // Another user's keys on this browser stay where they are.
    await page.evaluate(() => localStorage.setItem("orchestrator:dave:draft:x", "dave's"));

    await page.getByTestId("sign-out").click();
    await page.waitForURL(`${APP_URL}/cdn-cgi/access/logout`);
    assert.deepEqual(await storage(page), { "orchestrator:dave:draft:x": "dave's" });
    assert.deepEqual(page.errors, []);
  });
});
