// The Ctrl+K palette: threads by name, messages by content, and a jump to a message on another branch.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe } from "node:test";
import { api, createThread, openThread, screenshot, send, until, useBrowser, userMessage, waitForReply } from "./helpers.mjs";

const { it, newPage } = useBrowser();

/** A word that appears nowhere else, which the full-text index takes as one token. */
const uniqueWord = (prefix) => `${prefix}${randomBytes(4).toString("hex")}`;

describe("search palette", () => {
  it("finds a message on another branch with Ctrl+K and jumps to it", async () => {
    const { page } = await newPage();
    const word = uniqueWord("kumquat");
    const thread = await createThread(`Fruit ${word.slice(-4)}`);
    await openThread(page, thread.id);
    await send(page, `Tell me about the ${word} harvest`);
    await waitForReply(page, `Echo: Tell me about the ${word} harvest`);

    // Edit it: the first version, and its answer, are now on another branch.
    const first = userMessage(page, word).last();
    await first.getByTestId("edit-message").click();
    await page.getByTestId("message-editor-input").fill("Something else entirely");
    await page.getByTestId("message-editor-input").press("Enter");
    await waitForReply(page, "Echo: Something else entirely");
    assert.equal(await userMessage(page, word).count(), 0);

    // The search index has the stored messages once the run's writes land.
    await until(async () => (await api(`/api/search?q=${word}`)).results.length >= 2, { timeout: 20_000, message: "search never found the message" });

    await page.getByTestId("composer").focus();
    await page.keyboard.press("Control+k");
    const input = page.getByTestId("palette-input");
    await input.waitFor();
    await input.fill(word);
    const options = page.getByTestId("palette-option");
    await until(async () => (await options.count()) >= 2, { message: "the palette showed no results" });
    const texts = await options.allInnerTexts();
    assert.ok(texts.some((t) => t.includes(word)), `no option holds the word: ${texts}`);
    assert.ok(await page.locator(".palette-snippet mark").count(), "the hits are not marked");
    await screenshot(page, "26-search-palette");

    // Arrows move the selection; the user's message is the one to open.
    const userIndex = await options.evaluateAll((els) => els.findIndex((e) => e.querySelector(".palette-kind")?.textContent === "You"));
    assert.ok(userIndex >= 0, "the user's message is not among the results");
    for (let i = 0; i < userIndex; i++) await input.press("ArrowDown");
    assert.equal(await options.nth(userIndex).getAttribute("aria-selected"), "true");
    await input.press("Enter");
    await page.getByTestId("search-palette").waitFor({ state: "detached" });

    // The first version is shown again (the branch switched), scrolled to and marked.
    const target = userMessage(page, word).last();
    await target.waitFor();
    await until(async () => (await target.getAttribute("data-highlight")) !== null, { message: "the message was not highlighted" });
    await waitForReply(page, `Echo: Tell me about the ${word} harvest`);
    assert.equal(await target.getByTestId("branch-position").innerText(), "1 / 2");
    assert.deepEqual(page.errors, []);
  });

  it("opens a thread by its name, from anywhere, and Escape closes the palette", async () => {
    const { page } = await newPage();
    const word = uniqueWord("quince");
    const thread = await createThread(`Orchard ${word}`);
    await openThread(page, (await createThread("elsewhere")).id);

    await page.getByTestId("open-search").click();
    const input = page.getByTestId("palette-input");
    await input.fill(word.toUpperCase());
    const option = page.locator('[data-testid="palette-option"][data-kind="thread"]').filter({ hasText: word });
    await option.waitFor();
    await input.press("Enter");
    await page.waitForURL(new RegExp(`/t/${thread.id}$`));

    await page.keyboard.press("Control+k");
    await input.waitFor();
    await input.press("Escape");
    await page.getByTestId("search-palette").waitFor({ state: "detached" });
    assert.deepEqual(page.errors, []);
  });
});
