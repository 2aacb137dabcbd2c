// A deploy as a person sees it: the app restarts in the middle of an answer. Its own `wrangler dev`
// (started here from the suite's bundle, its state on disk) is stopped mid-stream and started again
// on the same port; the open page reconnects by itself. A run cut short before any tool ran answers
// again, its partial reply kept and marked; one cut short after a tool ran is not repeated, and the
// page says why.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import { startApp } from "../../scripts/wrangler-app.mjs";
import { api, marker, screenshot, script, send, sleep, until, UPSTREAM_URL, useBrowser, waitForChatReady } from "./helpers.mjs";

const { it, newPage } = useBrowser();

const dir = process.env.APP_BUNDLE_DIR;
const config = process.env.APP_BUNDLE_CONFIG ?? null;
const env = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" };
const vars = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: UPSTREAM_URL };

let app = null;

/** Starts the app (again, on its port, after a stop); the port can take a moment to be free. */
async function start(port) {
  for (let attempt = 1; ; attempt++) {
    try {
      const logPath = join(process.cwd(), "test-results", "browser-wrangler-restart.log");
      return await startApp({ name: "restart-app", dir, config, env, vars, logPath, port });
    } catch (err) {
      if (attempt >= 3) throw err;
      await sleep(1_000);
    }
  }
}

async function restart() {
  const port = Number(new URL(app.url).port);
  await app.stop();
  app = await start(port);
}

describe("a restart mid-answer", { skip: !dir && "APP_BUNDLE_DIR is not set" }, () => {
  before(async () => {
    app = await start();
  });
  after(async () => {
    await app?.stop();
  });

  async function openFresh(name) {
    const { thread } = await api("/api/threads", { body: { name }, app: app.url });
    const { page } = await newPage();
    await page.goto(`${app.url}/t/${thread.id}`);
    await waitForChatReady(page);
    return page;
  }

  const streamedSoFar = (page) => page.getByTestId("streaming-message").innerText().catch(() => "");

  it("answers again by itself when no tool had run, the cut reply kept and marked", async () => {
    const page = await openFresh("restart");
    const m = marker("restart");
    await script(m, [{ kind: "hang", afterText: "Half an answer" }, { kind: "text", text: "A whole answer, after the restart." }]);
    await send(page, `Tell me something ${m}`);
    await until(async () => (await streamedSoFar(page)).includes("Half an answer"), { message: "the first words never streamed" });
    // The streamed text is stored at least once a second (thread/store/replay.ts): a restart within that
    // second may cut the reply shorter than it was seen, as PROTOCOL.md allows. Past it, all of it is kept.
    await new Promise((r) => setTimeout(r, 1_100));

    await restart();

    const cut = page.locator('[data-restarted="true"][data-kind="text"]');
    await cut.waitFor({ timeout: 30_000 });
    assert.match(await cut.innerText(), /Half an answer[\s\S]*Interrupted by a restart — answered again below/);
    const answer = page.getByText("A whole answer, after the restart.");
    await answer.waitFor({ timeout: 20_000 });
    // Nothing for the reader to do: no alert, no retry, and the cut reply cannot be regenerated.
    assert.equal(await page.locator('[role="alert"]').count(), 0);
    assert.equal(await page.getByTestId("retry").count(), 0);
    assert.equal(await cut.getByRole("button", { name: /regenerate/i }).count(), 0);
    assert.match(await page.getByTestId("activity-line").first().innerText(), /restarted: answered again/);
    await screenshot(page, "16-restart-answered-again");

    await page.reload();
    await waitForChatReady(page);
    await page.getByText("A whole answer, after the restart.").waitFor();
    assert.match(await cut.innerText(), /Half an answer[\s\S]*Interrupted by a restart/);
    assert.equal(await page.locator('[role="alert"]').count(), 0);
    assert.deepEqual(page.errors, []);
  });

  it("does not repeat a run in which a tool had run, and says why", async () => {
    const page = await openFresh("restart after a tool");
    const m = marker("restart-tool");
    await script(m, [
      { kind: "tool_use", tools: [{ name: "time__current_time", input: {} }] },
      { kind: "hang", afterText: "It is now" },
    ]);
    await send(page, `What time is it? ${m}`);
    await until(async () => (await streamedSoFar(page)).includes("It is now"), { message: "the text after the tool never streamed" });

    await restart();

    const error = page.locator('[data-testid="pipeline-error"][data-code="interrupted"]');
    await error.waitFor({ timeout: 30_000 });
    assert.match(await error.innerText(), /after a tool had run; it was not repeated, since the tool may have had effects/);
    assert.equal(await error.getAttribute("role"), "alert");
    assert.equal(await error.getByTestId("retry").count(), 1, "the reader can send it again");
    await screenshot(page, "16-restart-after-a-tool");
    assert.deepEqual(page.errors, []);
  });
});
