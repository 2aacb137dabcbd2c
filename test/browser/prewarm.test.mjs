// Prewarm: opening a thread, or resting the pointer on one in the sidebar, asks the server to load
// its state ahead of the first message; once per thread in a while, and nothing waits for it.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { createThread, openThread, until, useBrowser } from "./helpers.mjs";

const { it, newPage } = useBrowser();

describe("prewarm", () => {
  it("warms a thread when it is opened or hovered, at most once in a while", async () => {
    const [opened, hovered, later] = [await createThread("prewarm opened"), await createThread("prewarm hovered"), await createThread("prewarm later")];
    const { page } = await newPage();
    const warmed = [];
    page.on("request", (req) => {
      if (req.method() === "POST" && new URL(req.url()).pathname === "/api/prewarm") warmed.push(JSON.parse(req.postData() ?? "{}").threadId);
    });

    await openThread(page, opened.id);
    await until(() => warmed.includes(opened.id), { message: "opening the thread did not warm it" });

    const row = page.locator(`[data-testid="thread-item"][data-thread-id="${hovered.id}"] .thread-link`);
    assert.ok(!warmed.includes(hovered.id));
    await row.hover();
    await until(() => warmed.includes(hovered.id), { message: "hovering the thread did not warm it" });
    // Focusing a row warms at once. The same thread again: nothing is sent; then another thread: its
    // request, sent after, shows that none went for the first.
    await row.focus();
    await page.locator(`[data-testid="thread-item"][data-thread-id="${later.id}"] .thread-link`).focus();
    await until(() => warmed.includes(later.id), { message: "focusing a thread did not warm it" });
    assert.equal(warmed.filter((id) => id === hovered.id).length, 1, "warmed once per thread in a while");
    assert.deepEqual(page.errors, []);
  });
});
