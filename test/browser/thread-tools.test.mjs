// The thread's menu and settings: export as Markdown and JSON, custom instructions to the model.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { api, createThread, marker, openThread, screenshot, send, systemText, until, upstreamRequests, useBrowser, waitForReply } from "./helpers.mjs";
import { downloadedText } from "./files.mjs";

const { it, newPage } = useBrowser();

describe("thread tools", () => {
  it("exports the thread as Markdown and as JSON", async () => {
    const { page } = await newPage();
    const thread = await createThread("Export me");
    const m = marker("export");
    await openThread(page, thread.id);
    await send(page, `Please remember ${m}`);
    await waitForReply(page, `Echo: Please remember ${m}`);

    await page.getByTestId("thread-menu").click();
    // The menu takes the focus; the arrows move in it.
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "menu-settings");
    await page.keyboard.press("ArrowDown");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "export-markdown");
    await screenshot(page, "28-export-menu");
    const markdown = await downloadedText(page, () => page.keyboard.press("Enter"));
    assert.equal(markdown.name, "export-me.md");
    assert.match(markdown.text, /^# Export me/);
    assert.ok(markdown.text.includes(`## User\n\nPlease remember ${m}`), markdown.text);
    assert.ok(markdown.text.includes(`## Assistant\n\nEcho: Please remember ${m}`), markdown.text);

    await page.getByTestId("thread-menu").click();
    const json = await downloadedText(page, () => page.getByTestId("export-json").click());
    const parsed = JSON.parse(json.text);
    assert.equal(parsed.thread.id, thread.id);
    assert.ok(parsed.messages.some((msg) => msg.content === `Please remember ${m}`));
    assert.deepEqual(page.errors, []);
  });

  it("saves the thread's instructions, which reach the model's system prompt from the next message", async () => {
    const { page } = await newPage();
    const thread = await createThread("Instructions");
    const [before, after] = [marker("before"), marker("after")];
    const instructions = `Answer like a ship's captain. ${marker("captain")}`;
    await openThread(page, thread.id);
    await send(page, `Hello ${before}`);
    await waitForReply(page, `Echo: Hello ${before}`);

    await page.getByTestId("open-settings").click();
    const panel = page.getByTestId("thread-settings");
    await panel.waitFor();
    const field = panel.getByTestId("instructions-input");
    assert.equal(await field.evaluate((el) => el === document.activeElement), true, "the instructions field has the focus");
    await field.fill(instructions);
    assert.equal(await panel.getByTestId("instructions-count").innerText(), `${instructions.length} / 20,000 characters`);
    await panel.getByTestId("instructions-save").click();
    await until(async () => /apply from your next message/.test(await panel.getByTestId("settings-outcome").innerText()), {
      message: "the panel did not say the instructions were saved",
    });
    await screenshot(page, "27-thread-settings");
    await page.keyboard.press("Escape");
    await panel.waitFor({ state: "detached" });

    await send(page, `And now ${after}`);
    await waitForReply(page, `Echo: And now ${after}`);
    const [sent] = await upstreamRequests(after);
    assert.ok(systemText(sent.body).includes(instructions), "the instructions are not in the system prompt");
    const [earlier] = await upstreamRequests(before);
    assert.ok(!systemText(earlier.body).includes(instructions), "the earlier request already had them");

    // They stay: the panel opens with them after a reload.
    await page.reload();
    await page.getByTestId("open-settings").click();
    assert.equal(await page.getByTestId("instructions-input").inputValue(), instructions);
    assert.deepEqual(page.errors, []);
  });

  it("turns code execution off for the thread: the next request offers no code tool", async () => {
    const { page } = await newPage();
    const thread = await createThread("No code");
    const m = marker("nocode");
    await openThread(page, thread.id);
    await page.getByTestId("open-settings").click();
    const toggle = page.getByTestId("thread-code-execution-toggle");
    assert.equal(await toggle.isChecked(), true, "code execution is on by default");
    await toggle.uncheck();
    await until(async () => (await api(`/api/threads/${thread.id}`)).thread.codeExecution === false, { message: "the setting was not saved" });
    await screenshot(page, "27-thread-settings-code-off");
    await page.keyboard.press("Escape");
    await send(page, `Hello ${m}`);
    await waitForReply(page, `Echo: Hello ${m}`);
    const [sent] = await upstreamRequests(m);
    assert.equal((sent.body.tools ?? []).some((t) => t.name === "code_execution"), false, "the code tool was offered");
    assert.deepEqual(page.errors, []);
  });
});
