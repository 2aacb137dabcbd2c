// The chat view against the real Worker: streaming, several tabs, reloads mid-stream, queued messages.
import assert from "node:assert/strict";
import { describe } from "node:test";
import {
  APP_URL,
  assistantTexts,
  createThread,
  finalAssistant,
  marker,
  openThread,
  screenshot,
  script,
  send,
  streamingText,
  until,
  useBrowser,
  userMessage,
  waitForChatReady,
  waitForReply,
  words,
} from "./helpers.mjs";

const { it, newPage } = useBrowser();

describe("chat", () => {
  it("sends a message and streams the reply", async () => {
    const { page } = await newPage();
    const m = marker("stream");
    const answer = words(30, "stream");
    await script(m, [{ kind: "text", text: answer, delayMs: 80 }]);

    // From the start page: the first message creates the thread.
    await page.goto(APP_URL);
    await page.getByTestId("composer").waitFor();
    const sentAt = Date.now();
    await send(page, `Hello ${m}`);

    // The user's message is on screen at once (pending, then stored), the composer is cleared.
    await userMessage(page, m).first().waitFor({ timeout: 2_000 });
    assert.ok(Date.now() - sentAt < 2_000, "the user message took more than 2 s to show");
    await page.waitForURL(/\/t\/[^/]+$/);
    assert.equal(await page.getByTestId("composer").inputValue(), "");

    // The streaming bubble shows part of the text, then more of it.
    const bubble = page.getByTestId("streaming-message");
    await bubble.waitFor({ timeout: 10_000 });
    const first = await until(
      async () => {
        const t = await streamingText(page);
        return t && t.startsWith("stream1") ? t : false;
      },
      { timeout: 10_000, message: "the streaming bubble never showed the first words" },
    );
    assert.ok(first.length < answer.length, `the first text seen was already complete: ${first}`);
    assert.ok(answer.startsWith(first), `streamed text is not a prefix of the answer: ${first}`);

    // While streaming: the activity line shows the hooks run so far, and says "streaming".
    const activity = page.getByTestId("activity-line").last();
    await until(async () => (await activity.locator(".step.done").count()) >= 3, {
      message: "the activity line did not show onMessage, onBeforeInvoke and invoking",
    });
    assert.equal(await activity.getAttribute("data-status"), "running");
    assert.match(await activity.innerText(), /invoking/);
    const later = await until(
      async () => {
        const t = await streamingText(page);
        return t && t.length > first.length ? t : false;
      },
      { timeout: 10_000, message: "the streaming text did not grow" },
    );
    assert.ok(answer.startsWith(later), `streamed text is not a prefix of the answer: ${later}`);
    await screenshot(page, "01-streaming");

    // The stored reply replaces the bubble, with the full text; the pipeline ran to the end.
    await waitForReply(page, answer);
    await bubble.waitFor({ state: "detached" });
    assert.equal(await finalAssistant(page).locator(".bubble").innerText(), answer);
    await until(async () => (await activity.getAttribute("data-status")) === "complete", {
      message: "the activity line never said complete",
    });
    assert.equal(await activity.locator(".step.done").count(), 4);
    assert.match(await activity.innerText(), /done/);
    // The run's details: each hook is listed.
    await activity.locator(".activity-summary").click();
    const details = await activity.locator(".activity-details").innerText();
    for (const hook of ["onMessage", "onBeforeInvoke", "invoking", "onAfterInvoke"]) assert.match(details, new RegExp(hook));
    assert.equal(await userMessage(page, m).count(), 1);
    assert.deepEqual(page.errors, []);
    await screenshot(page, "01-streamed-reply");
  });

  it("updates two tabs on one thread", async () => {
    const { context, page: a } = await newPage();
    const b = await context.newPage();
    const thread = await createThread("two tabs");
    const m = marker("tabs");
    const answer = words(12, "tab");
    await script(m, [{ kind: "text", text: answer, delayMs: 40 }]);

    await openThread(a, thread.id);
    await openThread(b, thread.id);
    await send(a, `From tab A ${m}`);

    for (const page of [a, b]) {
      await userMessage(page, m).first().waitFor();
      await waitForReply(page, answer);
    }
    // Each tab holds the message and the reply exactly once.
    for (const page of [a, b]) {
      assert.equal(await userMessage(page, m).count(), 1);
      assert.deepEqual(await assistantTexts(page).allInnerTexts(), [answer]);
      assert.equal(await page.getByTestId("streaming-message").count(), 0);
    }
    await screenshot(b, "02-second-tab");

    // And the other way round.
    const m2 = marker("tabs-back");
    await send(b, `From tab B ${m2}`);
    await waitForReply(a, `Echo: From tab B ${m2}`);
    await waitForReply(b, `Echo: From tab B ${m2}`);
    assert.equal(await userMessage(a, m2).count(), 1);
    assert.deepEqual(a.errors, []);
    assert.deepEqual(b.errors, []);
  });

  it("completes the reply without gaps after a reload mid-stream", async () => {
    const { page } = await newPage();
    const thread = await createThread("reload mid-stream");
    const m = marker("reload");
    const answer = words(60, "r");
    await script(m, [{ kind: "text", text: answer, delayMs: 80 }]);

    await openThread(page, thread.id);
    await send(page, `Reload me ${m}`);
    const bubble = page.getByTestId("streaming-message");
    await until(async () => ((await streamingText(page)) ?? "").split(/\s+/).length >= 8, {
      timeout: 10_000,
      message: "the reply did not start streaming",
    });

    await page.reload();
    await page.getByTestId("composer").waitFor();
    // Joined mid-run: the bubble carries on from the reply's first word (the run's earlier events are
    // replayed), not from wherever the stream was at the reload.
    const resumed = await until(
      async () => {
        const t = await streamingText(page);
        return t && t.length > 0 ? t : false;
      },
      { timeout: 10_000, message: "no streaming bubble after the reload (did the run end already?)" },
    );
    assert.ok(answer.startsWith(resumed), `after the reload the bubble shows ${JSON.stringify(resumed.slice(0, 60))}…, not the start of the reply`);
    await screenshot(page, "03-after-reload-streaming");

    await waitForReply(page, answer);
    assert.deepEqual(await assistantTexts(page).allInnerTexts(), [answer], "exactly one reply, word for word");
    assert.equal(await userMessage(page, m).count(), 1);
    assert.equal(await page.getByTestId("streaming-message").count(), 0);
    assert.deepEqual(page.errors, []);

    // And once more after the run: the stored messages alone give the same page.
    await page.reload();
    await waitForChatReady(page);
    await waitForReply(page, answer);
    assert.deepEqual(await assistantTexts(page).allInnerTexts(), [answer]);
  });

  it("queues a message sent during a reply, and keeps each reply under its message", async () => {
    const { page } = await newPage();
    const thread = await createThread("queue");
    const [m1, m2] = [marker("q1"), marker("q2")];
    const [a1, a2] = [words(20, "first"), words(5, "second")];
    await script(m1, [{ kind: "text", text: a1, delayMs: 60 }]);
    await script(m2, [{ kind: "text", text: a2, delayMs: 10 }]);

    await openThread(page, thread.id);
    await send(page, `One ${m1}`);
    await until(async () => ((await streamingText(page)) ?? "").length > 0, { message: "the first reply did not start" });
    await send(page, `Two ${m2}`);
    await waitForReply(page, a2);
    await waitForReply(page, a1);

    // Question, its reply, question, its reply: live, and again from the stored messages.
    const conversation = () =>
      page
        .locator('[data-testid="message"][data-kind="text"]:not([data-pending])')
        .evaluateAll((els) => els.map((e) => `${e.getAttribute("data-role")}: ${e.querySelector(".bubble")?.textContent?.trim()}`));
    const expected = [`user: One ${m1}`, `assistant: ${a1}`, `user: Two ${m2}`, `assistant: ${a2}`];
    assert.deepEqual(await conversation(), expected);
    await page.reload();
    await waitForChatReady(page);
    await waitForReply(page, a2);
    assert.deepEqual(await conversation(), expected, "after a reload the replies moved");
    // Each run's activity line sits between its question and its reply.
    const order = await page
      .locator('[data-testid="message"][data-kind="text"], [data-testid="activity-line"]')
      .evaluateAll((els) => els.map((e) => (e.getAttribute("data-testid") === "activity-line" ? "activity" : e.getAttribute("data-role"))));
    assert.deepEqual(order, ["user", "activity", "assistant", "user", "activity", "assistant"]);
    await screenshot(page, "03-queued-reloaded");
    assert.deepEqual(page.errors, []);
  });
});
