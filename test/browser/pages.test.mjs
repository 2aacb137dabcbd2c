// The other pages: plugins, context files, usage.
import assert from "node:assert/strict";
import { after, describe } from "node:test";
import {
  APP_URL,
  OFFLINE_APP_URL,
  api,
  createThread,
  marker,
  openThread,
  screenshot,
  send,
  signIn,
  systemText,
  until,
  upstreamRequests,
  useBrowser,
  waitForReply,
} from "./helpers.mjs";
import { OFFLINE_USERS } from "./offline-app.mjs";

const { it, newPage } = useBrowser();

/** One message through the API, waiting for its run to end (for pages that need runs). */
async function runOnce(content) {
  const thread = await createThread("usage run");
  await api(`/api/threads/${thread.id}/messages`, { body: { content } });
  await until(
    async () => {
      const { messages } = await api(`/api/threads/${thread.id}/messages?kinds=text`);
      return messages.some((msg) => msg.role === "assistant");
    },
    { timeout: 20_000, message: "the run did not finish" },
  );
  return thread;
}

describe("pages", () => {
  after(async () => {
    // Leave the app as it was, even when a test failed half-way.
    await api("/api/plugins/time", { method: "PATCH", body: { enabled: true } }).catch(() => {});
    await api("/api/context/notes.md", { method: "DELETE" }).catch(() => {});
  });

  it("turns a plugin off and on again", async () => {
    const { page } = await newPage();
    await page.goto(`${APP_URL}/plugins`);
    const row = page.locator('[data-testid="plugin-row"][data-plugin="time"]');
    await row.waitFor();
    const toggle = row.getByTestId("plugin-toggle");
    assert.equal(await toggle.isChecked(), true, "the time plugin starts enabled");
    assert.match(await row.innerText(), /current_time/, "its tool is listed");
    // Every registered plugin has a row, in registration order.
    const { plugins } = await api("/api/plugins");
    const rows = await page.getByTestId("plugin-row").evaluateAll((els) => els.map((e) => e.getAttribute("data-plugin")));
    assert.deepEqual(rows, [...plugins].sort((a, b) => a.order - b.order).map((p) => p.name));

    const enabledOnServer = async () => (await api("/api/plugins")).plugins.find((p) => p.name === "time").enabled;

    await toggle.click();
    await until(async () => (await row.getAttribute("data-enabled")) === "false", { message: "the row did not turn off" });
    assert.equal(await toggle.isChecked(), false);
    assert.match(await row.innerText(), /Disabled/);
    assert.equal(await enabledOnServer(), false, "GET /api/plugins still says enabled");
    await screenshot(page, "07-plugin-disabled");

    // It stays off across a reload.
    await page.reload();
    await row.waitFor();
    assert.equal(await toggle.isChecked(), false);

    await toggle.click();
    await until(async () => (await row.getAttribute("data-enabled")) === "true", { message: "the row did not turn on" });
    assert.equal(await enabledOnServer(), true);
    assert.deepEqual(page.errors, []);
  });

  it("creates a context file that reaches the model's system prompt", async () => {
    const { page } = await newPage();
    const secret = marker("ctx");
    const content = `# Notes\n\nThe project codename is ${secret}.\n- keep answers short\n- ünïcödé survives`;

    await page.goto(`${APP_URL}/context`);
    await page.getByTestId("context-editor").waitFor();
    await page.getByTestId("context-new").click();
    await page.getByTestId("context-path").fill("notes.md");
    await page.getByTestId("context-editor").fill(content);
    await page.getByTestId("context-save").click();
    await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
    await page.locator('[data-testid="context-file"][data-path="notes.md"]').waitFor();
    await screenshot(page, "08-context-saved");

    // After a reload it is listed, and opening it gives back the same text.
    await page.reload();
    const file = page.locator('[data-testid="context-file"][data-path="notes.md"]');
    await file.waitFor();
    await file.click();
    await until(async () => (await page.getByTestId("context-editor").inputValue()) === content, {
      message: "the file's content did not round-trip",
    });
    assert.equal(await page.getByTestId("context-path").inputValue(), "notes.md");
    assert.equal(await page.getByTestId("context-save").isDisabled(), true, "nothing changed yet, so nothing to save");

    // A chat message's request to the model carries it in `system`.
    const thread = await createThread("context");
    const m = marker("ctx-msg");
    await openThread(page, thread.id);
    await send(page, `Use the notes ${m}`);
    await waitForReply(page, `Echo: Use the notes ${m}`);
    const requests = await upstreamRequests(m);
    assert.ok(requests.length >= 1, "no upstream request seen for the message");
    const system = systemText(requests[0].body);
    assert.ok(system.includes(`The project codename is ${secret}.`), `system does not hold the file:\n${system.slice(0, 500)}`);
    assert.ok(system.includes("ünïcödé survives"));

    // Deleting it from the page takes it out of the list and out of the next request.
    await page.goto(`${APP_URL}/context`);
    await file.click();
    await until(async () => (await page.getByTestId("context-editor").inputValue()) === content);
    await page.getByTestId("context-delete").click();
    await page.getByTestId("context-delete-confirm").click();
    await file.waitFor({ state: "detached" });
    const files = (await api("/api/context")).files.map((f) => f.path);
    assert.ok(!files.includes("notes.md"), `still listed by the API: ${files}`);
    const m2 = marker("ctx-gone");
    await api(`/api/threads/${thread.id}/messages`, { body: { content: `Again ${m2}` } });
    const later = await until(async () => (await upstreamRequests(m2))[0], { message: "no upstream request for the second message" });
    assert.ok(!systemText(later.body).includes(secret), "a deleted context file still reaches the model");
    assert.deepEqual(page.errors, []);
  });

  it("charts usage, and lists recent runs with their thread (or that it was deleted)", async () => {
    const kept = await runOnce(`Count me ${marker("usage")}`);
    const gone = await runOnce(`Then forget me ${marker("usage-gone")}`);
    await api(`/api/threads/${gone.id}`, { method: "DELETE" });
    const { page } = await newPage();
    await page.goto(`${APP_URL}/usage`);
    const chart = page.getByTestId("usage-chart");
    await chart.waitFor();
    const totals = page.getByTestId("usage-totals");
    await totals.waitFor();

    // At least one bar with a height, and the totals the API gives for the same period (7 days).
    const bars = await chart.locator("rect").evaluateAll((els) => els.map((e) => Number(e.getAttribute("height"))));
    assert.ok(bars.some((h) => h > 0), `no bar with a height: ${JSON.stringify(bars)}`);
    const { totals: expected } = await api(`/api/metrics?since=${Date.now() - 7 * 86_400_000}`);
    assert.ok(expected.runs >= 1);
    const stat = async (label) =>
      (await totals.locator(".stat").filter({ has: page.locator("dt", { hasText: label }) }).locator("dd").innerText()).trim();
    assert.equal(await stat("Runs"), expected.runs.toLocaleString("en-US"));
    assert.notEqual(await stat("Input tokens"), "0");
    // The per-model table lists the model the runs used.
    assert.match(await page.locator("table").first().innerText(), /claude-sonnet-4-6/);
    // Recent runs name their thread; a deleted thread's usage stays, under "deleted thread".
    const row = (threadId) => page.locator(`[data-testid="run-row"][data-thread-id="${threadId}"]`).first();
    await until(async () => (await row(gone.id).count()) > 0, { message: "the deleted thread's run is not listed" });
    assert.match(await row(gone.id).locator("th").innerText(), /deleted thread/);
    assert.equal((await row(kept.id).locator("th").innerText()).trim(), "usage run");
    // Today's spend, as GET /api/metrics reports it; this app has no daily cap.
    const { limits } = await api("/api/metrics");
    assert.equal(limits.dailyCapUsd, null);
    assert.ok(limits.spentTodayUsd > 0);
    assert.match(await page.getByTestId("spend-today").innerText(), /^Spent today: \$[\d.]+ \(no daily cap\)$/);
    await screenshot(page, "09-spend-today", { clip: { x: 288, y: 0, width: 992, height: 220 } });
    await page.getByTestId("recent-runs").scrollIntoViewIfNeeded();
    await screenshot(page, "09-usage-recent-runs");
    await screenshot(page, "09-usage", { fullPage: true });
    assert.deepEqual(page.errors, []);
  });

  it("shows today's spend against the daily cap, with its meter", async () => {
    const { page } = await newPage();
    await signIn(page, OFFLINE_USERS.alice.token, "/usage");
    const spend = page.getByTestId("spend-today");
    await spend.waitFor();
    assert.match(await spend.innerText(), /Spent today: \$[\d.]+ of your \$5\.00 daily cap/);
    // The meter's fill is set through the DOM (not a style attribute, which the CSP would refuse).
    const meter = spend.getByRole("meter");
    assert.equal(await meter.getAttribute("aria-valuemax"), "5");
    assert.match(await meter.locator("span").evaluate((el) => el.style.width), /^\d+%$/);
    await screenshot(page, "09-spend-today-cap", { clip: { x: 288, y: 0, width: 992, height: 260 } });
    assert.deepEqual(page.errors, []);
  });
});
