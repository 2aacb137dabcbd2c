// The assistant's memory as a person sees it: the memory tool's calls as readable lines in the chat,
// and the notes it writes appearing on the Context page, open in another tab, without a reload.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe } from "node:test";
import { APP_URL, createThread, marker, openThread, screenshot, script, send, until, useBrowser, waitForChatReady, waitForReply } from "./helpers.mjs";

const { it, newPage } = useBrowser();

describe("memory", () => {
  it("shows the memory tool's calls in words, and the Context page shows the note at once", async () => {
    const note = `prefs-${randomUUID().slice(0, 8)}.md`;
    const m = marker("memory");
    // The text before and after the tool calls is one answer.
    const answer = "Let me look at my notes first.\n\nNoted: you prefer tea.";
    await script(m, [
      {
        kind: "blocks",
        delayMs: 10,
        blocks: [
          { type: "text", text: "Let me look at my notes first." },
          { type: "tool_use", name: "memory", input: { command: "view", path: "/memories" } },
        ],
      },
      {
        kind: "blocks",
        delayMs: 10,
        blocks: [{ type: "tool_use", name: "memory", input: { command: "create", path: `/memories/${note}`, file_text: "# Preferences\n\n- Prefers tea over coffee." } }],
      },
      { kind: "blocks", blocks: [{ type: "tool_use", name: "memory", input: { command: "create", path: "/etc/passwd", file_text: "x" } }] },
      { kind: "text", text: "Noted: you prefer tea." },
    ]);

    // The Context page in another tab of the same browser, and in another browser (which only
    // polling can tell): both open before the note exists.
    const { context, page: chat } = await newPage();
    const notesTab = await context.newPage();
    const { page: elsewhere } = await newPage();
    for (const p of [notesTab, elsewhere]) {
      await p.goto(`${APP_URL}/context`);
      await p.getByTestId("context-notes").waitFor();
      assert.equal(await p.locator(`[data-testid="context-file"][data-path="memories/${note}"]`).count(), 0);
    }
    assert.match(await notesTab.getByTestId("context-notes").innerText(), /Assistant's notes.*memory tool.*not put into every prompt/s);

    const thread = await createThread("memory");
    await openThread(chat, thread.id);
    await send(chat, `Remember that I prefer tea ${m}`);
    await waitForReply(chat, answer);

    // The calls read as what they did; the refused one says so, with the tool's reason.
    const lines = chat.getByTestId("memory-activity");
    await until(async () => (await lines.count()) === 3, { message: "three memory lines" });
    const texts = (await lines.allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());
    assert.match(texts[0], /^☰ Read notes: \/memories Show what it read$/);
    assert.match(texts[1], new RegExp(`^✎ Saved a note: /memories/${note.replace(".", "\\.")} Show the note$`));
    assert.match(texts[2], /^✎ Could not save a note: \/etc\/passwd .*not allowed/);
    assert.equal(await lines.nth(2).getAttribute("data-state"), "failed");
    assert.equal(await chat.getByTestId("tool-call").count(), 0, "no raw JSON cards for memory");
    await lines.nth(1).getByRole("button", { name: "Show the note" }).click();
    assert.match(await lines.nth(1).locator("pre").innerText(), /Prefers tea over coffee/);
    await screenshot(chat, "16-memory-lines");

    // The note appears on both Context pages without a reload: the other tab at once (the chat's
    // socket heard context:changed), the other browser by polling.
    const row = (p) => p.locator(`[data-testid="context-notes"] [data-testid="context-file"][data-path="memories/${note}"]`);
    await row(notesTab).waitFor({ timeout: 3_000 });
    await row(elsewhere).waitFor({ timeout: 8_000 });
    await row(notesTab).click();
    await until(async () => /Prefers tea over coffee/.test(await notesTab.getByTestId("context-editor").inputValue()), { message: "the note's text" });
    await screenshot(notesTab, "16-context-notes");

    // After a reload the memory lines read the same.
    await chat.reload();
    await waitForChatReady(chat);
    await waitForReply(chat, answer);
    const reloaded = (await chat.getByTestId("memory-activity").allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());
    assert.deepEqual(reloaded, texts);
    for (const p of [chat, notesTab, elsewhere]) assert.deepEqual(p.errors, []);
  });
});
