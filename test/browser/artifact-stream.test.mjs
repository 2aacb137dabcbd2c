// An artifact growing as the model writes it (pipeline:stream tool_input): while the fake upstream
// streams an artifacts__create input slowly, the conversation shows a card for it and the panel its
// content so far, as source (an HTML page is not run half-written); when the call is done and
// artifact:updated comes, the artifact itself replaces the preview. An open panel turns to a new
// draft by itself, without taking the composer's focus.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { createThread, marker, openThread, screenshot, script, send, until, useBrowser, waitForReply } from "./helpers.mjs";

const { it, newPage } = useBrowser();

const panel = (page) => page.getByTestId("artifact-panel");
const draftCard = (page) => page.getByTestId("artifact-draft-card");
const card = (page, title) => page.getByTestId("artifact-card").filter({ hasText: title });
const panelText = async (page) => ((await panel(page).count()) ? await panel(page).getByTestId("artifact-content").innerText() : "");

/** The JSON text of an artifacts__create input, cut into `parts` (each a piece of the content after the first). */
function pieces(title, type, parts) {
  const json = JSON.stringify({ title, type, content: parts.join("") });
  const head = json.indexOf('"content":"') + '"content":"'.length;
  // Each piece ends where a part of the content ends (in the JSON text, escapes written out).
  const cuts = [];
  let at = head;
  for (const part of parts) {
    at += JSON.stringify(part).length - 2;
    cuts.push(at);
  }
  cuts[cuts.length - 1] = json.length;
  return cuts.map((end, i) => json.slice(i === 0 ? 0 : cuts[i - 1], end));
}

const POEM = ["# Growing poem\n\nFirst line, written first\n", 'Second line, with a "quote"\n', "Third line comes last\n"];
const PAGE = ['<!doctype html><p id="grown">half a page', " and the rest</p><script>document.title = 'ran'</script>"];

describe("an artifact being written", () => {
  it("grows in its card and the panel as its input streams, then becomes the artifact", async () => {
    const { page } = await newPage();
    const thread = await createThread("Artifacts: growing");
    await openThread(page, thread.id);
    const m = marker("grow");
    // 900 ms between the pieces: the test sees each state well before the next piece.
    await script(m, [
      { kind: "tool_use", text: "Writing.", delayMs: 900, tools: [{ name: "artifacts__create", id: `toolu_grow_${m.slice(-8)}`, chunks: pieces("Growing poem", "markdown", POEM) }] },
      { kind: "text", text: "The poem is written." },
    ]);
    await send(page, `A poem ${m}`);

    // The card of the artifact in progress, in the conversation; the panel opens on it.
    await draftCard(page).waitFor({ timeout: 15_000 });
    await until(async () => (await draftCard(page).getByTestId("artifact-card-title").innerText()) === "Growing poem", { message: "the draft card has no title" });
    await draftCard(page).click();
    await until(async () => (await panelText(page)).includes("First line, written first"), { message: "the panel does not show the first part" });
    // Partial: what has come shows, as source, and what has not is not there yet.
    assert.equal(await panel(page).getAttribute("data-draft"), "true");
    assert.equal(await panel(page).getByTestId("artifact-title").innerText(), "Growing poem");
    assert.equal(await panel(page).getByTestId("artifact-content").getAttribute("data-type"), "source");
    assert.match(await panelText(page), /^# Growing poem\n\nFirst line, written first/);
    assert.doesNotMatch(await panelText(page), /Third line comes last/);
    assert.equal(await panel(page).locator("h1").count(), 0, "the markdown was rendered before it was whole");
    assert.match(await draftCard(page).innerText(), /Document · Writing…/);
    assert.equal(await page.getByTestId("artifact-card").count(), 0, "a saved artifact's card before the call completed");
    await screenshot(page, "45-artifact-streaming");

    await until(async () => (await panelText(page)).includes('Second line, with a "quote"'), { message: "the panel did not grow" });
    assert.doesNotMatch(await panelText(page), /Third line comes last/);

    // The call completes: the artifact replaces its preview, in the panel and in the conversation.
    await waitForReply(page, "Writing.\n\nThe poem is written.");
    await until(async () => (await panel(page).getAttribute("data-draft")) === null, { message: "the panel still shows the draft" });
    await panel(page).locator('[data-testid="artifact-content"][data-type="markdown"] h1', { hasText: "Growing poem" }).waitFor();
    assert.match(await panel(page).getByTestId("artifact-content").innerText(), /Third line comes last/);
    assert.equal(await panel(page).getByTestId("artifact-version").inputValue(), "1");
    assert.equal(await draftCard(page).count(), 0);
    assert.match(await card(page, "Growing poem").innerText(), /Document · Version 1/);
    assert.equal(await card(page, "Growing poem").getAttribute("aria-pressed"), "true");
    await screenshot(page, "45-artifact-streamed");
    assert.deepEqual(page.errors, []);
  });

  it("turns an open panel to a new draft, shows an HTML page as source until it is whole, and leaves the composer its focus", async () => {
    const { page } = await newPage();
    const thread = await createThread("Artifacts: following");
    await openThread(page, thread.id);
    const first = marker("first");
    await script(first, [{ kind: "tool_use", tools: [{ name: "artifacts__create", input: { title: "Notes", type: "markdown", content: "# Notes" } }] }, { kind: "text", text: "Noted." }]);
    await send(page, `Notes ${first}`);
    await waitForReply(page, "Noted.");
    await card(page, "Notes").click();
    await panel(page).locator("h1", { hasText: "Notes" }).waitFor();

    const m = marker("page");
    await script(m, [
      { kind: "tool_use", delayMs: 900, tools: [{ name: "artifacts__create", chunks: pieces("Small page", "html", PAGE) }] },
      { kind: "text", text: "The page is made." },
    ]);
    await send(page, `A page ${m}`);
    // The user goes on typing while the model writes.
    await page.getByTestId("composer").fill("next question");

    await until(async () => (await panel(page).getAttribute("data-draft")) === "true", { message: "the open panel did not turn to the draft" });
    await until(async () => (await panelText(page)).includes("half a page"), { message: "no partial page" });
    assert.match(await panelText(page), /^<!doctype html><p id="grown">half a page/);
    assert.equal(await panel(page).getByTestId("artifact-frame").count(), 0, "a half-written page was run");
    assert.equal(await panel(page).getByTestId("artifact-kind").innerText(), "HTML page");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "composer");
    await screenshot(page, "45-artifact-streaming-html");

    // Whole: the page runs, in its sandboxed frame.
    await waitForReply(page, "The page is made.");
    await panel(page).getByTestId("artifact-frame").waitFor();
    await until(async () => (await page.frameLocator('[data-testid="artifact-panel"] [data-testid="artifact-frame"]').locator("#grown").innerText()) === "half a page and the rest", { message: "the page did not load" });
    assert.equal(await page.getByTestId("composer").inputValue(), "next question");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "composer");
    assert.deepEqual(page.errors, []);
  });
});
