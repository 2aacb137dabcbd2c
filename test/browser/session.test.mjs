// Token mode on the offline app: sign-in, what each user's browser storage holds, sign-out, and the
// plugins page of a user who is not an admin.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { OFFLINE_APP_URL, api, screenshot, signIn, until, useBrowser } from "./helpers.mjs";
import { OFFLINE_USERS } from "./offline-app.mjs";

const { it, newPage } = useBrowser();

/**
 * Until the Worker reports the caller in /api/health (`auth`), the page is shown the answer it will
 * give for this suite's users; an answer that has `auth` passes through unchanged.
 */
async function reportCallerInHealth(context) {
  await context.route("**/api/health", async (route) => {
    const response = await route.fetch();
    const body = await response.json().catch(() => null);
    if (!response.ok() || !body || body.auth) return route.fulfill({ response });
    const token = /^Bearer (.+)$/.exec(route.request().headers().authorization ?? "")?.[1];
    const [userId, user] = Object.entries(OFFLINE_USERS).find(([, u]) => u.token === token) ?? [];
    body.auth = { mode: "token", userId, admin: !!user?.admin };
    return route.fulfill({ response, json: body });
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
    const { context, page } = await newPage();
    await reportCallerInHealth(context);
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
    await page.locator('[data-testid="thread-list"][aria-busy="false"]').waitFor();
    assert.equal(await page.locator(`[data-thread-id="${thread.id}"]`).count(), 0);
    assert.deepEqual(Object.keys(await storage(page)).sort(), ["orchestrator:bob:token", "orchestrator:user"]);
    assert.deepEqual(page.errors, []);
  });

  it("shows plugin settings read-only to a user who is not an admin", async () => {
    const { context, page } = await newPage();
    await reportCallerInHealth(context);
    await signIn(page, OFFLINE_USERS.alice.token, "/plugins");
    const row = page.locator('[data-testid="plugin-row"][data-plugin="time"]');
    await row.waitFor();
    await page.getByTestId("plugins-read-only").waitFor();
    assert.equal(await row.getByTestId("plugin-toggle").isDisabled(), true);
    await row.getByRole("button", { name: "Settings" }).click();
    assert.equal(await row.getByTestId("plugin-settings").isDisabled(), true);
    assert.equal(await row.getByTestId("plugin-settings-save").count(), 0);
    await screenshot(page, "12-plugins-read-only");

    // An admin gets the controls.
    const { page: admin } = await newPage();
    await reportCallerInHealth(admin.context());
    await signIn(admin, OFFLINE_USERS.bob.token, "/plugins");
    const adminRow = admin.locator('[data-testid="plugin-row"][data-plugin="time"]');
    await adminRow.waitFor();
    assert.equal(await adminRow.getByTestId("plugin-toggle").isDisabled(), false);
    assert.equal(await admin.getByTestId("plugins-read-only").count(), 0);
    assert.deepEqual(page.errors, []);
  });
});
