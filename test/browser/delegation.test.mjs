// Delegation as a person sees it: the task thread nested under its parent, the outcome as a card
// that links to it, and the tasks page.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { APP_URL, createThread, marker, openThread, screenshot, script, send, until, useBrowser, waitForReply } from "./helpers.mjs";

const { it, newPage } = useBrowser();

describe("delegation", () => {
  it("nests the task thread under its parent and links the outcome card to it", async () => {
    const [p, c] = [marker("parent"), marker("child")];
    await script(c, [{ kind: "text", text: "Three bullet points, as asked." }]);
    await script(p, [
      { kind: "text", text: `I'll hand this to a sub-agent.\n/delegate summarise the notes in three bullets ${c}` },
      { kind: "text", text: "The sub-agent is done: see its summary above." },
    ]);
    const parent = await createThread("delegating parent");
    const { page } = await newPage();
    await openThread(page, parent.id);
    await send(page, `Please delegate the summary ${p}`);

    const card = page.getByTestId("cross-thread-notification");
    await card.waitFor({ timeout: 20_000 });
    assert.match(await card.innerText(), /completed/i);
    await waitForReply(page, "The sub-agent is done: see its summary above.");
    // The task strip ends on the task's last state (task:stream frames carry an older copy).
    await until(async () => /completed/.test(await page.locator(".task-strip").innerText()), { message: "the task strip never said completed" });

    const child = page.locator(`[data-testid="thread-item"]`).filter({ hasText: "Task: summarise the notes" });
    await child.waitFor({ timeout: 20_000 });
    const parentItem = page.locator(`[data-testid="thread-item"][data-thread-id="${parent.id}"]`);
    const [parentBox, childBox] = [await parentItem.boundingBox(), await child.boundingBox()];
    assert.ok(childBox.x > parentBox.x, "the task thread is indented under its parent");
    await screenshot(page, "11-delegation-parent");

    await page.getByTestId("notification-link").first().click();
    await until(async () => new URL(page.url()).pathname.startsWith("/t/thr_") && !page.url().includes(parent.id), {
      message: "the link did not open the task thread",
    });
    await waitForReply(page, "Three bullet points, as asked.");
    await screenshot(page, "11-delegation-task-thread");

    await page.goto(`${APP_URL}/tasks`);
    const row = page.getByTestId("task-row").filter({ hasText: "summarise the notes" });
    await row.waitFor();
    assert.equal(await row.getAttribute("data-status"), "completed");
    await screenshot(page, "11-tasks-page");
  });
});
