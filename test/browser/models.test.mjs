// Threads on the model catalog, as a person sees them: the model picker lists what the deployment
// offers (GET /api/models) and the next request goes to the model chosen; a run whose conversation
// the server compacted says so on its run line, live and after a reload.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { api, createThread, marker, openThread, screenshot, send, until, upstream, upstreamRequests, useBrowser, waitForChatReady, waitForReply } from "./helpers.mjs";

const { it, newPage } = useBrowser();

/** The fake's limits for the requests that hold `match` only. */
const fakeConfig = upstream.config;

describe("models", () => {
  it("lists the deployment's models in the picker, and sends the next message to the one chosen", async () => {
    const { models, default: defaultModel } = await api("/api/models");
    const { page } = await newPage();
    const thread = await createThread("model picker");
    await openThread(page, thread.id);
    const picker = page.getByTestId("model-select");
    const offered = await picker.locator("option").evaluateAll((options) => options.map((o) => o.value));
    assert.deepEqual(new Set(offered), new Set([thread.model, defaultModel, ...models.map((m) => m.id)]));
    assert.equal(await picker.locator(`option[value="${defaultModel}"]`).innerText(), `${defaultModel} (default)`);

    const other = models.map((m) => m.id).find((id) => id !== thread.model);
    assert.ok(other, "the deployment offers a second model");
    await picker.selectOption(other);
    await until(async () => (await api(`/api/threads/${thread.id}`)).thread.model === other, { message: "the thread's model did not change" });
    const m = marker("model");
    await send(page, `Which model? ${m}`);
    await waitForReply(page, `Echo: Which model? ${m}`);
    const [request] = await upstreamRequests(m);
    assert.equal(request.body.model, other);
    assert.equal(await picker.inputValue(), other);
    assert.deepEqual(page.errors, []);
  });

  it("marks a run whose conversation the server compacted, live and after a reload", async () => {
    const m = marker("compact");
    await fakeConfig({ compactionTriggerChars: 6_000, match: m });
    try {
      const { page } = await newPage();
      const thread = await createThread("compaction");
      await openThread(page, thread.id);
      for (let i = 1; i <= 3; i++) {
        const text = `${i} ${"c".repeat(2_500)} ${m}`;
        await send(page, text);
        await waitForReply(page, `Echo: ${text}`);
      }
      const requests = (await upstreamRequests(m)).map((r) => r.body);
      const compacted = requests.findIndex((b) => b.messages.some((msg) => Array.isArray(msg.content) && msg.content.some((c) => c.type === "compaction")));
      assert.ok(compacted > 0, "a later request should carry the compaction block");

      const marks = page.getByTestId("activity-compacted");
      await until(async () => (await marks.count()) > 0, { message: "no run line says compacted" });
      assert.match(await marks.first().getAttribute("title"), /summarized to fit/);
      await marks.last().scrollIntoViewIfNeeded();
      await screenshot(page, "11-compacted-run");
      const live = await marks.count();

      await page.reload();
      await waitForChatReady(page);
      await until(async () => (await marks.count()) === live, { message: "after a reload the compacted mark is gone" });
      assert.deepEqual(page.errors, []);
    } finally {
      await fakeConfig({});
    }
  });
});
