// API keys (PROTOCOL.md "API keys and compatible endpoints"): a key made on Settings › API keys, its
// secret shown once (copied, then dismissed and gone from the page, never in GET /api/keys or the
// page's storage); a script in this process chatting through POST /v1/chat/completions with it; the
// key's "last used" after a reload, the script's thread in the list with its API badge; the key
// revoked in the UI, and the script's next call refused in OpenAI's error shape. The page on a phone;
// past 20 keys, the form says the limit.
import assert from "node:assert/strict";
import { after, describe } from "node:test";
import { APP_URL, api, screenshot, until, useBrowser, waitForChatReady } from "./helpers.mjs";

const { it, newPage } = useBrowser();

const MAX_KEYS = 20;

/** The keys this file made: revoked when it ends, whatever happened (the app's one user keeps them otherwise). */
const made = new Set();
after(async () => {
  for (const keyId of made) await api(`/api/keys/${keyId}`, { method: "DELETE" }).catch(() => {});
});

/** The script: one Chat Completions request with the key, as any OpenAI client would send it. */
function chat(secret, model, content = "Say hello") {
  return fetch(`${APP_URL}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content }] }),
  });
}

const keyRow = (page, keyId) => page.locator(`[data-testid="api-key-row"][data-key-id="${keyId}"]`);

describe("API keys", () => {
  it("makes a key in Settings, a script chats with it through /v1, its thread is badged API, and revoked the key is refused", async () => {
    // Tall enough for the form, the list and the start of "How to use" in one screenshot; the
    // clipboard granted, so Copy can be checked.
    const { page } = await newPage({ viewport: { width: 1280, height: 1000 }, permissions: ["clipboard-read", "clipboard-write"] });
    await page.goto(`${APP_URL}/`);
    await page.getByTestId("nav-api-keys").click();
    await page.getByTestId("api-keys-page").waitFor();
    assert.equal(new URL(page.url()).pathname, "/settings/api-keys");
    assert.equal(await page.getByTestId("nav-api-keys").getAttribute("aria-current"), "page");

    // "How to use" names this deployment's endpoints.
    assert.equal(await page.getByTestId("api-base-url").innerText(), `${APP_URL}/v1`);
    assert.equal(await page.getByTestId("api-mcp-url").innerText(), `${APP_URL}/mcp`);
    const { default: model } = await api("/api/models");
    const example = await page.getByTestId("api-openai-example").innerText();
    assert.match(example, /-H "Authorization: Bearer \$ORCHESTRATOR_API_KEY"/);
    await until(async () => (await page.getByTestId("api-openai-example").innerText()).includes(`"model":"${model}"`), {
      message: "the example never named the default model",
    });
    assert.match(await page.getByTestId("api-anthropic-example").innerText(), /-H "x-api-key: \$ORCHESTRATOR_API_KEY"/);

    // A name is checked before it is sent.
    const form = page.getByTestId("api-key-form");
    await form.getByTestId("api-key-create").click();
    await form.getByTestId("api-key-name-problem").waitFor();
    assert.equal(await form.getByTestId("api-key-name").getAttribute("aria-invalid"), "true");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "api-key-name");

    await form.getByTestId("api-key-name").fill("  my script ");
    await form.getByTestId("api-key-create").click();
    const panel = page.getByTestId("api-key-secret-panel");
    await panel.waitFor();
    const secret = (await panel.getByTestId("api-key-secret").innerText()).trim();
    const keyId = await panel.getAttribute("data-key-id");
    made.add(keyId);
    assert.match(secret, /^eo_\S{20,}$/);
    assert.match(await panel.innerText(), /won’t be shown again/);
    // The Copy button has the focus, and copies the whole secret.
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "api-key-copy");
    await panel.getByTestId("api-key-copy").click();
    await panel.getByText("Copied to the clipboard.").waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);

    // Listed at once, newest first, by its name (trimmed) and the secret's start only.
    const row = keyRow(page, keyId);
    await row.waitFor();
    assert.equal(await page.getByTestId("api-key-row").first().getAttribute("data-key-id"), keyId);
    assert.equal(await row.locator("th").innerText(), "my script");
    assert.equal(await row.getByTestId("api-key-prefix").innerText(), `${secret.slice(0, 10)}…`);
    assert.equal(await row.getByTestId("api-key-last-used").innerText(), "never");
    await screenshot(page, "66-api-key-created");

    // The secret is the page's alone: not in the list's answer, not in the page's storage.
    const { keys } = await api("/api/keys");
    assert.ok(keys.some((k) => k.id === keyId && k.name === "my script" && k.prefix === secret.slice(0, 10) && k.lastUsedAt === null));
    assert.ok(!JSON.stringify(keys).includes(secret), "GET /api/keys holds the secret");
    assert.ok(!JSON.stringify(keys).includes(secret.slice(10)), "GET /api/keys holds part of the secret past its prefix");
    const stored = await page.evaluate(() => JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)]));
    assert.ok(!stored.includes(secret), "the secret is in the page's storage");

    // Dismissed, it is gone from the page; the form is back with the focus.
    await panel.getByTestId("api-key-dismiss").click();
    await panel.waitFor({ state: "detached" });
    assert.ok(!(await page.content()).includes(secret), "the page still holds the secret");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "api-key-name");

    // The script, with the key.
    const res = await chat(secret, model);
    const answer = await res.text();
    assert.equal(res.status, 200, answer);
    const completion = JSON.parse(answer);
    assert.equal(completion.object, "chat.completion");
    assert.equal(typeof completion.choices[0].message.content, "string");
    assert.ok(completion.choices[0].message.content.trim().length > 0, "an empty answer");
    const threadId = res.headers.get("x-thread-id");
    assert.ok(threadId, "no X-Thread-Id");
    const { thread } = await api(`/api/threads/${threadId}`);
    assert.equal(thread.kind, "api");

    // After a reload the key was used a moment ago, and the script's thread is in the list, badged.
    await page.reload();
    await row.waitFor();
    await until(async () => (await row.getByTestId("api-key-last-used").innerText()) !== "never", { message: "the key's last use never showed" });
    // Kept to the minute: a use 50 s ago may read "1 minute ago".
    assert.match(await row.getByTestId("api-key-last-used").innerText(), /^(just now|1 minute ago)$/);
    const threadRow = page.locator(`[data-testid="thread-item"][data-thread-id="${threadId}"]`);
    await threadRow.waitFor();
    assert.equal(await threadRow.getAttribute("data-kind"), "api");
    // "API" on screen; "API thread:" for a screen reader.
    assert.equal(await threadRow.getByTestId("thread-api-badge").textContent(), "API thread:");
    assert.ok(await threadRow.getByTestId("thread-api-badge").isVisible());
    // Opened, the thread has the script's message, the answer and the API badge in its header.
    await threadRow.locator(".thread-link").click();
    await waitForChatReady(page);
    await page.getByTestId("api-thread-badge").waitFor();
    await page.locator('[data-testid="message"][data-role="user"]').filter({ hasText: "Say hello" }).waitFor();
    await page.locator('[data-testid="message"][data-role="assistant"][data-kind="text"]').first().waitFor();
    await screenshot(page, "67-api-thread");

    // Revoked in the UI, after its confirmation (Cancel has the focus).
    await page.getByTestId("nav-api-keys").click();
    await row.getByTestId("api-key-revoke").click();
    const dialog = page.getByTestId("api-key-revoke-dialog");
    await dialog.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "api-key-revoke-cancel");
    assert.match(await dialog.innerText(), /Revoke “my script”\?/);
    await screenshot(page, "68-api-key-revoke");
    await dialog.getByTestId("api-key-revoke-confirm").click();
    await dialog.waitFor({ state: "detached" });
    await row.waitFor({ state: "detached" });
    made.delete(keyId);
    assert.ok(!(await api("/api/keys")).keys.some((k) => k.id === keyId));

    // The script's next call is refused, as OpenAI's API refuses a bad key.
    const refused = await chat(secret, model);
    const refusal = await refused.text();
    assert.equal(refused.status, 401, refusal);
    const { error } = JSON.parse(refusal);
    assert.equal(typeof error.message, "string");
    assert.ok(error.message.length > 0);
    assert.equal(typeof error.type, "string");
    assert.ok("code" in error, "OpenAI's error has a code (a string or null)");
    assert.ok(!refusal.includes(secret), "the refusal repeats the secret");
    assert.deepEqual(page.errors, []);
  });

  it("fits a phone-sized screen, the new key's secret and the list included", async () => {
    const { page } = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await page.goto(`${APP_URL}/settings/api-keys`);
    await page.getByTestId("api-key-name").fill("phone script");
    await page.getByTestId("api-key-create").tap();
    const panel = page.getByTestId("api-key-secret-panel");
    await panel.waitFor();
    made.add(await panel.getAttribute("data-key-id"));
    await page.getByTestId("api-key-row").first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
    for (const id of ["api-key-secret", "api-key-copy", "api-key-dismiss"]) {
      const box = await page.getByTestId(id).boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `${id} is off screen: ${JSON.stringify(box)}`);
    }
    // The secret's panel's foot and the list's first card in one screen.
    await page.getByTestId("api-key-row").first().scrollIntoViewIfNeeded();
    await screenshot(page, "69-api-keys-phone");
    // Each key is a small card there: its Revoke button on screen too.
    const revoke = await page.getByTestId("api-key-revoke").first().boundingBox();
    assert.ok(revoke && revoke.x + revoke.width <= 390, `Revoke is off screen: ${JSON.stringify(revoke)}`);
  });

  it(`says the limit when the user already holds ${MAX_KEYS} keys`, async () => {
    const { keys } = await api("/api/keys");
    for (let n = keys.length; n < MAX_KEYS; n++) made.add((await api("/api/keys", { body: { name: `filler ${n + 1}` } })).key.id);
    const { page } = await newPage();
    await page.goto(`${APP_URL}/settings/api-keys`);
    await page.getByTestId("api-key-count").getByText(`${MAX_KEYS} of ${MAX_KEYS}`).waitFor();
    await page.getByTestId("api-key-name").fill("one too many");
    await page.getByTestId("api-key-create").click();
    const limit = page.getByTestId("api-key-limit");
    await limit.waitFor();
    assert.match(await limit.innerText(), /You have 20 keys, the most you may hold\. Revoke one/);
    assert.equal(await page.getByTestId("api-key-secret-panel").count(), 0);
    assert.equal((await api("/api/keys")).keys.length, MAX_KEYS);
  });
});
