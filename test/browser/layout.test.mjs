// The frame of the app: the provider banner, and a phone-sized screen.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { APP_URL, OFFLINE_APP_URL, api, marker, screenshot, send, signIn, until, useBrowser, waitForReply } from "./helpers.mjs";
import { OFFLINE_USERS } from "./offline-app.mjs";

const { it, newPage } = useBrowser();

describe("layout", () => {
  it("shows no provider banner when the app has an API key", async () => {
    const health = await api("/api/health");
    assert.equal(health.model.provider, "anthropic", "the suite runs the app with a key");
    const { page } = await newPage();
    await page.goto(APP_URL);
    // The app has rendered what /api/health said: the banner is decided in that same render.
    await page.locator('.app[data-provider="anthropic"]').waitFor();
    await page.getByTestId("composer").waitFor();
    assert.equal(await page.getByTestId("provider-banner").count(), 0);
    // The sidebar is a column here, not a drawer.
    assert.equal(await page.getByTestId("menu-toggle").isVisible(), false);
    assert.equal(await page.getByTestId("nav-usage").isVisible(), true);
    await screenshot(page, "10-desktop-start");
  });

  it("shows the provider banner when the app runs the offline model", async () => {
    const { page } = await newPage();
    await signIn(page, OFFLINE_USERS.bob.token);
    await page.locator('.app[data-provider="offline"]').waitFor();
    const banner = page.getByTestId("provider-banner");
    assert.match(await banner.innerText(), /Offline model:.*ANTHROPIC_API_KEY/s);
    assert.equal(await banner.isVisible(), true);

    // The offline model answers too: a message gets a stored reply.
    await send(page, `Hello offline ${marker("offline")}`);
    await page.waitForURL(/\/t\/[^/]+$/);
    await page.locator('[data-testid="message"][data-role="assistant"][data-kind="text"]').first().waitFor({ timeout: 20_000 });
    assert.equal((await api("/api/health", { app: OFFLINE_APP_URL, token: OFFLINE_USERS.bob.token })).model.provider, "offline");
    await screenshot(page, "10-offline-banner");
    assert.deepEqual(page.errors, []);
  });

  it("works on a phone-sized screen, with the sidebar as a drawer", async () => {
    const { page } = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await page.goto(APP_URL);
    const composer = page.getByTestId("composer");
    await composer.waitFor();
    const menu = page.getByTestId("menu-toggle");
    assert.equal(await menu.isVisible(), true);
    assert.equal(await menu.getAttribute("aria-expanded"), "false");
    const nav = page.getByTestId("nav-usage");
    assert.equal(await nav.isVisible(), false, "the drawer starts closed");
    assert.equal(await page.getByTestId("provider-banner").count(), 0);

    // Nothing sticks out sideways; the composer and its button fit the screen.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
    for (const id of ["composer", "send"]) {
      const box = await page.getByTestId(id).boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 390 && box.y + box.height <= 844, `${id} is off screen: ${JSON.stringify(box)}`);
    }

    // The drawer opens, and closes with Escape and when a page is chosen.
    await menu.click();
    assert.equal(await menu.getAttribute("aria-expanded"), "true");
    await until(async () => {
      const box = await page.locator("#sidebar").boundingBox();
      return box && box.x >= 0 && (await nav.isVisible());
    }, { message: "the drawer did not open" });
    await screenshot(page, "10-phone-drawer");
    await page.keyboard.press("Escape");
    await until(async () => !(await nav.isVisible()), { message: "Escape did not close the drawer" });
    await menu.click();
    await nav.waitFor();
    await page.getByTestId("nav-chat").click();
    await until(async () => !(await nav.isVisible()), { message: "choosing a page did not close the drawer" });

    // A conversation on the phone.
    const m = marker("phone");
    await composer.tap();
    await send(page, `Hello from a phone ${m}`);
    await page.waitForURL(/\/t\/[^/]+$/);
    await waitForReply(page, `Echo: Hello from a phone ${m}`);
    const reply = page.locator('[data-testid="message"][data-role="assistant"][data-kind="text"]').last();
    const box = await reply.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `the reply is off screen: ${JSON.stringify(box)}`);
    const after = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(after <= 0, `the chat is ${after}px wider than the screen`);
    await screenshot(page, "10-phone-chat");

    // The new thread is in the drawer's list.
    await menu.click();
    await page.getByTestId("thread-item").filter({ hasText: "Hello from a phone" }).first().waitFor();
    assert.deepEqual(page.errors, []);
  });
});
