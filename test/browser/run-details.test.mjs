// A run's other outcomes and details, live and after a reload: stop, failure and retry, tool
// calls, thinking.
import assert from "node:assert/strict";
import { describe } from "node:test";
import {
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
} from "./helpers.mjs";

const { it, newPage } = useBrowser();

describe("run details", () => {
  it("stops a reply, keeps its partial text, and can send again", async () => {
    const { page } = await newPage();
    const thread = await createThread("stop");
    const m = marker("stop");
    const partial = "These words arrive before the stream goes silent.";
    await script(m, [{ kind: "hang", afterText: partial, delayMs: 20 }]);

    await openThread(page, thread.id);
    await send(page, `Hang on ${m}`);
    await until(async () => (await streamingText(page)) === partial, {
      timeout: 10_000,
      message: "the partial text never streamed",
    });
    const stop = page.getByTestId("stop");
    await stop.click();

    const error = page.getByTestId("pipeline-error");
    await error.waitFor();
    assert.equal(await error.getAttribute("data-code"), "aborted");
    await stop.waitFor({ state: "detached" });
    await page.getByTestId("streaming-message").waitFor({ state: "detached" });
    // The partial text stays, marked as stopped.
    await until(async () => (await assistantTexts(page).allInnerTexts()).map((t) => t.trim()).includes(partial), {
      message: "the partial text is gone after the stop",
    });
    assert.match(await finalAssistant(page).innerText(), /stopped/);
    assert.match(await page.getByTestId("activity-line").last().innerText(), /stopped/);
    await screenshot(page, "04-stopped");

    // The composer works again, and the next run completes.
    const m2 = marker("after-stop");
    await send(page, `Next ${m2}`);
    await waitForReply(page, `Echo: Next ${m2}`);
    assert.equal(await page.getByTestId("pipeline-error").count(), 1);

    // After a reload the stopped run still reads the same: partial text, the stop, then the next run.
    await page.reload();
    await waitForChatReady(page);
    await waitForReply(page, `Echo: Next ${m2}`);
    const texts = (await assistantTexts(page).allInnerTexts()).map((t) => t.trim());
    assert.deepEqual(texts, [partial, `Echo: Next ${m2}`]);
    assert.equal(await page.locator('[data-testid="pipeline-error"][data-code="aborted"]').count(), 1);
    await screenshot(page, "04-stopped-reloaded");
    assert.deepEqual(page.errors, []);
  });

  it("shows a failed run in place, and Retry sends the message again", async () => {
    const { page } = await newPage();
    const thread = await createThread("failure");
    const m = marker("fail");
    const partial = "Half an answer";
    await script(m, [{ kind: "stream_error", afterText: partial, type: "overloaded_error", delayMs: 10 }]);

    await openThread(page, thread.id);
    await send(page, `Fail once ${m}`);
    const error = page.getByTestId("pipeline-error");
    await error.waitFor();
    const code = await error.getAttribute("data-code");
    assert.ok(code && code !== "aborted", `a failure, not a stop: ${code}`);
    assert.equal(await error.getAttribute("role"), "alert");
    assert.match(await page.getByTestId("activity-line").last().innerText(), /failed/);
    // What streamed before the failure stays, marked incomplete.
    await until(async () => (await assistantTexts(page).allInnerTexts()).map((t) => t.trim()).includes(partial), {
      message: "the partial text is gone after the failure",
    });
    assert.match(await finalAssistant(page).innerText(), /incomplete/);
    await screenshot(page, "04-failed");

    // Retry: the same message goes again (the script is used up, so the fake echoes it).
    await error.getByTestId("retry").click();
    await waitForReply(page, `Echo: Fail once ${m}`);
    assert.equal(await userMessage(page, m).count(), 2);
    assert.deepEqual(page.errors, []);
  });

  it("shows a tool call and its result", async () => {
    const { page } = await newPage();
    const thread = await createThread("tools");
    const m = marker("tool");
    const answer = "I looked at the clock for you.";
    await script(m, [
      { kind: "tool_use", tools: [{ name: "time__current_time", input: {} }], delayMs: 10 },
      { kind: "text", text: answer, delayMs: 10 },
    ]);

    await openThread(page, thread.id);
    await send(page, `What time is it? ${m}`);
    const call = page.getByTestId("tool-call");
    const result = page.getByTestId("tool-result");
    await call.waitFor();
    await result.waitFor();
    await waitForReply(page, answer);

    assert.match(await call.innerText(), /current_time/);
    assert.match(await call.innerText(), /time/); // the plugin's pill
    assert.match(await result.innerText(), /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/, "the result holds an ISO time");
    assert.equal(await result.getAttribute("data-error"), null);
    assert.match(await result.innerText(), /current_time/, "the result names its tool");
    const id = await call.getAttribute("data-tool-use-id");
    assert.ok(id, "the call card names its tool use");
    assert.equal(await result.getAttribute("data-tool-use-id"), id);
    assert.match(await page.getByTestId("activity-line").last().innerText(), /1 tool/);
    await screenshot(page, "05-tool-cards");

    // From the stored messages, after a reload: the same cards, once each.
    await page.reload();
    await waitForChatReady(page);
    await waitForReply(page, answer);
    assert.equal(await call.count(), 1);
    assert.equal(await result.count(), 1);
    assert.match(await result.innerText(), /\d{4}-\d{2}-\d{2}T/);
    assert.match(await result.innerText(), /current_time/, "the stored result names its tool");
    const stored = page.getByTestId("activity-line").last();
    assert.equal(await stored.getAttribute("data-status"), "complete");
    assert.match(await stored.innerText(), /1 tool/);
    await screenshot(page, "05-tool-cards-reloaded");
    assert.deepEqual(page.errors, []);
  });

  it("collapses thinking and expands it on demand", async () => {
    const { page } = await newPage();
    const thread = await createThread("thinking");
    const m = marker("think");
    const thought = "The user wants a number, so I will weigh six times seven.";
    const answer = "The answer is 42.";
    await script(m, [{ kind: "text", text: answer, thinking: { text: thought }, delayMs: 15 }]);

    await openThread(page, thread.id);
    await send(page, `Think first ${m}`);
    await waitForReply(page, answer);

    const thinking = page.getByTestId("thinking");
    await thinking.waitFor();
    assert.equal(await thinking.count(), 1);
    assert.equal(await page.getByTestId("thinking-content").count(), 0, "thinking is collapsed at first");
    assert.doesNotMatch(await page.locator(".message-list").innerText(), /six times seven/);
    const toggle = page.getByTestId("thinking-toggle");
    assert.equal(await toggle.getAttribute("aria-expanded"), "false");
    await screenshot(page, "06-thinking-collapsed");

    await toggle.click();
    const content = page.getByTestId("thinking-content");
    await content.waitFor();
    assert.equal((await content.innerText()).trim(), thought);
    assert.equal(await toggle.getAttribute("aria-expanded"), "true");
    await screenshot(page, "06-thinking-expanded");

    await toggle.click();
    await content.waitFor({ state: "detached" });

    // Stored thinking after a reload: collapsed again, the same text.
    await page.reload();
    await waitForChatReady(page);
    await waitForReply(page, answer);
    assert.equal(await page.getByTestId("thinking").count(), 1);
    assert.equal(await page.getByTestId("thinking-content").count(), 0);
    await page.getByTestId("thinking-toggle").click();
    assert.equal((await page.getByTestId("thinking-content").innerText()).trim(), thought);
    assert.deepEqual(page.errors, []);
  });

  it("shows the prompt cache's reads and writes on the run line, live and stored", async () => {
    const { page } = await newPage();
    const thread = await createThread("prompt cache");
    const m = marker("cache");
    const usage = { input_tokens: 40, output_tokens: 4, cache_read_input_tokens: 1200, cache_creation_input_tokens: 300 };
    await script(m, [{ kind: "text", text: "From the cache", usage }]);
    await openThread(page, thread.id);
    await send(page, `Cached ${m}`);
    await waitForReply(page, "From the cache");
    const cache = () => page.getByTestId("activity-line").last().getByTestId("activity-cache");
    await until(async () => (await cache().count()) > 0, { message: "the run line does not show the cache" });
    assert.equal(await cache().innerText(), "cache 1.2k read · 300 write");

    await page.reload();
    await waitForChatReady(page);
    await waitForReply(page, "From the cache");
    assert.equal(await cache().innerText(), "cache 1.2k read · 300 write");
    assert.deepEqual(page.errors, []);
  });
});
