// Share links, on the offline app (token mode): a thread shared from its menu, the link opened in a
// fresh browser context that has no credentials (read-only: the name, the date, the messages and an
// image sent in it; no composer, no sidebar, no sign-in), listed in the settings, revoked: the page
// says the link is not available and the API answers 404.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { gradientPng } from "./files.mjs";
import { OFFLINE_APP_URL, screenshot, send, signIn, until, useBrowser, waitForChatReady } from "./helpers.mjs";
import { OFFLINE_USERS } from "./offline-app.mjs";

const { it, newPage } = useBrowser();

describe("share links", () => {
  it("shares a thread read-only with anyone who has the link, until it is revoked", async () => {
    const { page } = await newPage();
    await signIn(page, OFFLINE_USERS.alice.token);
    await page.getByTestId("new-thread").click();
    await page.waitForURL(/\/t\/thr_/);
    await waitForChatReady(page);
    await page.getByTestId("file-input").setInputFiles([{ name: "sketch.png", mimeType: "image/png", buffer: gradientPng() }]);
    await until(async () => (await page.locator('[data-testid="upload"][data-status="done"]').count()) === 1, { message: "the image did not upload" });
    const question = `Plan the shared picnic ${Date.now()}`;
    await send(page, question);
    const answers = page.locator('[data-testid="message"][data-role="assistant"][data-kind="text"]:not([data-partial])');
    await until(async () => (await answers.count()) >= 1, { timeout: 20_000, message: "no answer" });
    const answer = (await answers.first().locator(".bubble").innerText()).trim();

    // Share: a link is made and shown.
    await page.getByTestId("thread-menu").click();
    await page.getByTestId("menu-share").click();
    const urlField = page.getByTestId("share-url");
    await urlField.waitFor();
    const url = await urlField.inputValue();
    assert.match(url, new RegExp(`^${OFFLINE_APP_URL}/s/[0-9a-f]{40}$`));
    const shareId = url.split("/").pop();
    await screenshot(page, "41-share-dialog");
    await page.getByTestId("share-close").click();

    // A fresh context: no token, no storage. The page is the read-only view, not the sign-in form.
    const { page: reader } = await newPage();
    const response = await reader.goto(url);
    assert.equal(response.headers()["x-robots-tag"], "noindex");
    await reader.getByTestId("shared-view").waitFor();
    await until(async () => (await reader.getByTestId("shared-title").innerText()) !== "Loading…", { message: "the title never came" });
    assert.match(await reader.getByTestId("shared-date").innerText(), /^Shared on /);
    const user = reader.locator('[data-testid="message"][data-role="user"]').filter({ hasText: question });
    await user.waitFor();
    await reader.locator('[data-testid="message"][data-role="assistant"][data-kind="text"]').filter({ hasText: answer.slice(0, 40) }).first().waitFor();
    // The image, through the share's own route.
    const img = user.getByTestId("attachment-image").locator("img");
    await img.waitFor();
    await until(() => img.evaluate((el) => el.complete && el.naturalWidth === 96), { message: "the shared image did not load" });
    assert.equal(await reader.getByTestId("composer").count(), 0, "a composer on the shared page");
    assert.equal(await reader.locator("#sidebar").count(), 0, "a sidebar on the shared page");
    assert.equal(await reader.getByTestId("sign-in").count(), 0, "the sign-in form on the shared page");
    assert.equal(await reader.getByTestId("edit-message").count(), 0, "edit on a shared message");
    assert.equal(await reader.getByTestId("regenerate").count(), 0, "regenerate on a shared message");
    await screenshot(reader, "42-shared-thread");

    // Listed in the thread's settings, and revoked there.
    await page.getByTestId("open-settings").click();
    const link = page.locator(`[data-testid="share-link"][data-share-id="${shareId}"]`);
    await link.waitFor();
    await link.getByTestId("share-revoke").click();
    await link.waitFor({ state: "detached" });

    // The link is gone: the page says so, and the API answers 404 in the error shape.
    await reader.reload();
    await reader.getByTestId("shared-not-found").waitFor();
    assert.match(await reader.getByTestId("shared-not-found").innerText(), /not available/);
    const res = await fetch(`${OFFLINE_APP_URL}/api/shared/${shareId}`);
    assert.equal(res.status, 404);
    assert.equal((await res.json()).error.code, "not_found");
    assert.deepEqual(page.errors, []);
    assert.deepEqual(reader.errors, []);
  });

  it("shows the not-found page for a link that never existed", async () => {
    const { page } = await newPage();
    await page.goto(`${OFFLINE_APP_URL}/s/${"0".repeat(96)}`);
    await page.getByTestId("shared-not-found").waitFor();
    assert.equal(await page.getByTestId("sign-in").count(), 0);
    assert.deepEqual(page.errors, []);
  });
});
