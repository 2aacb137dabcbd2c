// Versions of a message: edit in place, regenerate, the ‹ n / m › switcher, a reload, another tab.
import assert from "node:assert/strict";
import { describe } from "node:test";
import {
  assistantTexts,
  createThread,
  marker,
  openThread,
  screenshot,
  script,
  send,
  until,
  useBrowser,
  userMessage,
  waitForChatReady,
  waitForReply,
} from "./helpers.mjs";

const { it, newPage } = useBrowser();

/** The stored text messages shown, as "role: text". */
const conversation = (page) =>
  page
    .locator('[data-testid="message"][data-kind="text"]:not([data-pending])')
    .evaluateAll((els) => els.map((e) => `${e.getAttribute("data-role")}: ${e.querySelector(".bubble")?.textContent?.trim()}`));

/** The switcher's "n / m" on the user message holding `text`, once it says `expected`. */
async function switcherSays(page, text, expected) {
  const position = userMessage(page, text).last().getByTestId("branch-position");
  return until(async () => ((await position.count()) && (await position.innerText()).trim() === expected ? expected : false), {
    message: `the switcher never said ${expected}`,
  });
}

describe("branches", () => {
  it("edits a message in place, regenerates a reply, switches between versions, and keeps the choice", async () => {
    const { context, page } = await newPage();
    const thread = await createThread("branches");
    const [m1, m2] = [marker("first"), marker("second")];
    await script(m2, [
      { kind: "text", text: "Answer to the edit" },
      { kind: "text", text: "A regenerated answer" },
    ]);

    await openThread(page, thread.id);
    await send(page, `First question ${m1}`);
    await waitForReply(page, `Echo: First question ${m1}`);

    // Edit in place: the editor opens on the message, with its text.
    const first = userMessage(page, m1).last();
    await first.hover();
    await first.getByTestId("edit-message").click();
    const editor = page.getByTestId("message-editor-input");
    await editor.waitFor();
    assert.equal(await editor.inputValue(), `First question ${m1}`);
    assert.equal(await editor.evaluate((el) => el === document.activeElement), true, "the editor has the focus");
    await editor.fill(`Second question ${m2}\nwith a second line`);
    await screenshot(page, "20-inline-editor");
    // Shift+Enter broke the line above; Enter sends.
    await editor.press("Enter");
    await waitForReply(page, "Answer to the edit");
    assert.deepEqual(await conversation(page), [`user: Second question ${m2}\nwith a second line`, "assistant: Answer to the edit"]);
    await switcherSays(page, m2, "2 / 2");

    // Regenerate: a third version of the question, answered again.
    const reply = page.locator('[data-testid="message"][data-role="assistant"][data-kind="text"]').last();
    await reply.hover();
    await reply.getByTestId("regenerate").click();
    await waitForReply(page, "A regenerated answer");
    await switcherSays(page, m2, "3 / 3");
    assert.deepEqual(await assistantTexts(page).allInnerTexts(), ["A regenerated answer"]);

    // Another tab on the thread follows the switch made in this one.
    const other = await context.newPage();
    await openThread(other, thread.id);
    await waitForReply(other, "A regenerated answer");

    // Back one version: the edit's answer again; then the first question.
    await userMessage(page, m2).last().getByTestId("branch-prev").click();
    await switcherSays(page, m2, "2 / 3");
    await waitForReply(page, "Answer to the edit");
    assert.deepEqual(await assistantTexts(page).allInnerTexts(), ["Answer to the edit"]);
    await userMessage(page, m2).last().hover();
    await screenshot(page, "21-branch-switcher");
    await waitForReply(other, "Answer to the edit");
    assert.deepEqual(await assistantTexts(other).allInnerTexts(), ["Answer to the edit"], "the other tab did not follow");

    // The server keeps the choice: a reload shows the same version.
    await page.reload();
    await waitForChatReady(page);
    await switcherSays(page, m2, "2 / 3");
    assert.deepEqual(await conversation(page), [`user: Second question ${m2}\nwith a second line`, "assistant: Answer to the edit"]);

    await userMessage(page, m2).last().getByTestId("branch-prev").click();
    await switcherSays(page, m1, "1 / 3");
    await waitForReply(page, `Echo: First question ${m1}`);
    assert.equal(await userMessage(page, m2).count(), 0);
    assert.deepEqual(page.errors, []);
    assert.deepEqual(other.errors, []);
  });

  it("edits the last message with the Up arrow, and Escape cancels", async () => {
    const { page } = await newPage();
    const thread = await createThread("up arrow");
    const m = marker("up");
    await openThread(page, thread.id);
    await send(page, `One ${m}`);
    await waitForReply(page, `Echo: One ${m}`);
    await send(page, `Two ${m}`);
    await waitForReply(page, `Echo: Two ${m}`);

    const composer = page.getByTestId("composer");
    await composer.focus();
    await composer.press("ArrowUp");
    const editor = page.getByTestId("message-editor-input");
    await editor.waitFor();
    assert.equal(await editor.inputValue(), `Two ${m}`, "the Up arrow opened the last message");
    await editor.press("Escape");
    await editor.waitFor({ state: "detached" });
    const focused = await page.evaluate(() => document.activeElement?.getAttribute("data-testid"));
    assert.equal(focused, "edit-message", "the focus went back to the message's edit button");
    // Nothing was sent.
    assert.deepEqual(await assistantTexts(page).allInnerTexts(), [`Echo: One ${m}`, `Echo: Two ${m}`]);

    // With text in the composer, the Up arrow moves the caret as usual.
    await composer.fill("draft");
    await composer.press("ArrowUp");
    assert.equal(await page.getByTestId("message-editor").count(), 0);
    assert.deepEqual(page.errors, []);
  });
});
