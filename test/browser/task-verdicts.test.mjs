// A delegated task's card shows the validator's latest verdict: who judged, a rejection's feedback,
// the iteration, live as task:evaluated arrives, and still after a reload (the task keeps it).
import assert from "node:assert/strict";
import { describe } from "node:test";
import { createThread, marker, openThread, screenshot, script, send, until, useBrowser, waitForChatReady, waitForReply } from "./helpers.mjs";

const { it, newPage } = useBrowser();

describe("task verdicts", () => {
  it("shows a rejection with its feedback, then the acceptance, on the task's card", async () => {
    // The validator's question holds the task's prompt (marker c) and the result it judges: the
    // first result carries marker v, so the first verdict is v's script; the second, judging a
    // result without v, falls to c's.
    const [p, c, v] = [marker("parent"), marker("child"), marker("verdict")];
    const feedback = "The summary has two bullets; the task asks for three.";
    await script(c, [
      { kind: "text", text: `- one\n- two ${v}` },
      { kind: "text", text: "ACCEPT" },
    ]);
    await script(v, [
      { kind: "text", text: `REJECT: ${feedback}` },
      // The second iteration's answer (its history holds v): slow, so the rejection shows a while.
      { kind: "text", text: "- one\n- two\n- three", firstByteDelayMs: 2_500 },
    ]);
    await script(p, [
      { kind: "text", text: `Handing this over.\n/delegate summarise the notes in three bullets ${c}` },
      { kind: "text", text: "The sub-agent is done." },
    ]);
    const parent = await createThread("verdicts");
    const { page } = await newPage();
    await openThread(page, parent.id);
    await send(page, `Delegate the summary ${p}`);

    const verdict = page.getByTestId("task-verdict");
    await until(async () => (await verdict.count()) > 0 && (await verdict.getAttribute("data-accepted")) === "false", {
      timeout: 20_000,
      message: "the rejection never showed",
    });
    const rejected = (await verdict.innerText()).replace(/\s+/g, " ");
    assert.match(rejected, /Rejected by validator \(claude-haiku-4-5\) · iteration 1/);
    assert.ok(rejected.includes(feedback), rejected);
    await screenshot(page, "16-task-verdict-rejected");

    await until(async () => (await verdict.getAttribute("data-accepted")) === "true", { timeout: 20_000, message: "the acceptance never showed" });
    const accepted = (await verdict.innerText()).replace(/\s+/g, " ");
    assert.match(accepted, /Accepted by validator \(claude-haiku-4-5\) · iteration 2/);
    assert.ok(!accepted.includes(feedback), "an acceptance has no feedback");
    await waitForReply(page, "The sub-agent is done.");
    await until(async () => /completed/.test(await page.locator(".task-strip").innerText()), { message: "the task never completed" });
    await screenshot(page, "16-task-verdict-accepted");

    await page.reload();
    await waitForChatReady(page);
    await verdict.waitFor();
    assert.equal((await verdict.innerText()).replace(/\s+/g, " "), accepted, "after a reload the card reads the same");
    assert.deepEqual(page.errors, []);
  });
});
