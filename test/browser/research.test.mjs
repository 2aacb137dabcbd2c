// Research as a person sees it: started from the composer's Research switch in a new conversation,
// its plan shown for review and edited (a sub-question removed, an empty one refused, one added),
// then its sub-questions researched at once (all running together, sources appearing as their
// searches and fetches end), the time ticking and the cost growing; another tab, and a reload, see
// the same card; the report opens in the artifact panel with its numbered citations. `/research`
// typed in the composer starts one too, and Stop ends it and all its tasks at once.
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { APP_URL, api, createThread, marker, openThread, screenshot, script, send, until, useBrowser, waitForChatReady } from "./helpers.mjs";

const { it, newPage } = useBrowser();

/** One task's run: a search whose results take a moment, a fetch that takes longer, then its findings. */
function taskAnswer(n, topic) {
  return {
    kind: "blocks",
    delayMs: 20,
    blocks: [
      { type: "server_tool_use", name: "web_search", input: { query: topic } },
      {
        type: "web_search_tool_result",
        delayMs: 1_500,
        results: [
          { title: `${topic} — overview`, url: `https://energy.example.gov/${n}/overview` },
          { title: `Field study ${n}`, url: `https://research.example.org/studies/${n}` },
        ],
      },
      { type: "server_tool_use", name: "web_fetch", input: { url: `https://research.example.org/studies/${n}` } },
      { type: "web_fetch_tool_result", url: `https://research.example.org/studies/${n}`, title: `Field study ${n}`, text: `Measured results for ${topic}.`, delayMs: 2_500 },
      { type: "text", text: `Finding ${n}: the field study (https://research.example.org/studies/${n}) measured it.` },
    ],
  };
}

const REPORT = [
  "# Heat pumps in cold climates",
  "",
  "Modern cold-climate heat pumps keep most of their capacity well below freezing [1], and defrost cycles cost a few percent of their output [2].",
  "",
  "## Efficiency",
  "",
  "Field studies measured a seasonal COP above 2.5 at −15 °C [3].",
].join("\n");

/** The state of the page's research card: its status and each sub-question's. */
async function cardState(card) {
  return {
    status: await card.getAttribute("data-status"),
    subs: await card.getByTestId("research-subquestion").evaluateAll((rows) => rows.map((r) => r.dataset.status)),
    sources: await card.getByTestId("research-source").count(),
  };
}

describe("research", () => {
  // The validator's model calls would take the tasks' scripted answers: the tasks' results count as they are.
  before(async () => {
    await api("/api/plugins/validator", { method: "PATCH", body: { enabled: false } });
  });
  after(async () => {
    await api("/api/plugins/validator", { method: "PATCH", body: { enabled: true } });
  });

  it("plans, takes an edited plan, researches the sub-questions at once and opens the cited report", async () => {
    const q = marker("q");
    const [s1, s2, s3, s4] = [marker("s1"), marker("s2"), marker("s3"), marker("s4")];
    const subs = [
      `How much capacity do heat pumps keep below −20 °C? ${s1}`,
      `How much energy do defrost cycles cost? ${s2}`,
      `Which refrigerants suit cold climates? ${s3}`,
    ];
    const added = `What seasonal COP do field studies measure? ${s4}`;
    // The question's script first: a task's request holds the question too, and the fake answers a
    // request from the newest script it matches (the tasks' once registered after).
    await script(q, [
      { kind: "text", text: JSON.stringify(subs), firstByteDelayMs: 1_500 },
      { kind: "text", text: REPORT, firstByteDelayMs: 2_000 },
    ]);
    for (const [i, s] of [s1, s2, s3, s4].entries()) await script(s, [taskAnswer(i + 1, ["capacity below −20 °C", "defrost cost", "refrigerants", "seasonal COP"][i])]);

    const { context, page } = await newPage();
    await page.goto(`${APP_URL}/`);
    await page.getByTestId("composer").waitFor();
    await page.getByTestId("research-switch").check();
    await page.getByTestId("composer").fill(`How well do heat pumps work in very cold climates? ${q}`);
    await page.getByTestId("composer").press("Enter");

    // A new conversation: its thread is made, then opened with the research's card where its message is.
    await until(async () => new URL(page.url()).pathname.startsWith("/t/thr_"), { message: "the new thread never opened" });
    const threadId = new URL(page.url()).pathname.split("/").pop();
    await waitForChatReady(page);
    const card = page.getByTestId("research-card");
    await card.waitFor({ timeout: 10_000 });
    assert.equal(await page.getByTestId("research-switch").isChecked(), false, "the switch turns off once the research started");
    assert.match(await card.getByTestId("research-question").innerText(), /How well do heat pumps work in very cold climates\?/);

    // The plan, for review.
    await until(async () => (await card.getAttribute("data-status")) === "review", { timeout: 15_000, message: "the plan never came for review" });
    const fields = card.getByTestId("research-plan-text");
    assert.deepEqual(await fields.evaluateAll((els) => els.map((e) => e.value)), subs);
    assert.match(await card.getByTestId("research-status").innerText(), /Review the plan: 3 sub-questions/);
    await screenshot(page, "72-research-plan-review");

    // Edited: the third goes, an empty one is refused, then it is written.
    await card.getByRole("button", { name: "Remove sub-question 3" }).click();
    await card.getByTestId("research-plan-add").click();
    assert.equal(await fields.count(), 3);
    assert.equal(await fields.nth(2).evaluate((el) => el === document.activeElement), true, "the new field takes the focus");
    await card.getByTestId("research-plan-start").click();
    await card.getByTestId("research-plan-problem").waitFor();
    assert.match(await card.getByTestId("research-plan-problem").innerText(), /Write the sub-question, or remove it/);
    assert.equal(await fields.nth(2).getAttribute("aria-invalid"), "true");
    await screenshot(page, "73-research-plan-problem");
    await fields.nth(2).fill(added);
    await card.getByTestId("research-plan-start").click();

    // The tasks run at once: every sub-question running together, sources appearing as they come.
    await until(async () => (await card.getAttribute("data-status")) === "running", { message: "the research never ran" });
    let together = null;
    await until(
      async () => {
        const state = await cardState(card);
        if (state.subs.length === 3 && state.subs.every((s) => s === "running")) together = state;
        return together;
      },
      { timeout: 15_000, interval: 25, message: "the sub-questions never ran at the same time" },
    );
    const texts = await card.locator(".research-subquestion-text").allInnerTexts();
    assert.deepEqual(texts, [subs[0], subs[1], added]);
    const firstElapsed = await card.getByTestId("research-elapsed").innerText();

    // Another tab sees the same card, live.
    const other = await context.newPage();
    await openThread(other, threadId);
    const otherCard = other.getByTestId("research-card");
    await until(async () => (await otherCard.getAttribute("data-status")) === "running", { message: "the other tab never showed the research running" });

    await until(async () => (await card.getByTestId("research-source").count()) >= 2, { timeout: 15_000, message: "no sources appeared" });
    await screenshot(page, "74-research-running");
    const link = card.getByTestId("research-source").first().locator("a");
    assert.equal(await link.getAttribute("target"), "_blank");
    assert.equal(await link.getAttribute("rel"), "noopener noreferrer");
    assert.match(await link.innerText(), /energy\.example\.gov|research\.example\.org/);
    assert.notEqual(await card.getByTestId("research-elapsed").innerText(), firstElapsed, "the elapsed time ticks");

    // A reload resumes the card where the research is.
    await other.reload();
    await waitForChatReady(other);
    await otherCard.waitFor();
    await until(async () => ["running", "writing", "done"].includes(await otherCard.getAttribute("data-status")), { message: "the reloaded card never resumed" });

    // The report: written, then opened in the artifact panel.
    await until(async () => (await card.getAttribute("data-status")) === "writing", { timeout: 20_000, interval: 25, message: "the report was never written" });
    assert.match(await card.getByTestId("research-status").innerText(), /Writing the report…/);
    await screenshot(page, "75-research-writing");
    await until(async () => (await card.getAttribute("data-status")) === "done", { timeout: 30_000, message: "the research never finished" });
    const done = await cardState(card);
    assert.deepEqual(done.subs, ["completed", "completed", "completed"]);
    assert.match(await card.getByTestId("research-status").innerText(), /The report is ready/);
    assert.match(await card.getByTestId("research-cost").innerText(), /\$/);
    await until(async () => (await otherCard.getAttribute("data-status")) === "done", { message: "the other tab never saw it done" });
    // The tasks' news is a line each (the card shows the rest), and the task strip leaves them to the card.
    const news = page.getByTestId("cross-thread-notification");
    await until(async () => (await news.count()) === 3, { message: "the tasks' news never came" });
    assert.deepEqual(await news.evaluateAll((els) => els.map((e) => e.dataset.researchTask)), ["true", "true", "true"]);
    assert.equal(await page.locator(".task-strip").count(), 0);
    await card.getByTestId("research-open-report").click();
    const panel = page.getByTestId("artifact-panel");
    await panel.waitFor();
    await until(async () => (await panel.getByTestId("artifact-title").innerText()) === "Heat pumps in cold climates", { message: "the panel never showed the report" });
    await until(async () => (await panel.locator('a[href^="https://"]').count()) > 0, { message: "the report has no cited links" });
    const cited = await panel.locator('a[href^="https://"]').evaluateAll((as) => as.map((a) => a.getAttribute("href")));
    for (const href of cited) assert.match(href, /^https:\/\/(energy\.example\.gov|research\.example\.org)\//, `a citation to a page no task found: ${href}`);
    await screenshot(page, "76-research-report");
    assert.deepEqual(page.errors, []);
    assert.deepEqual(other.errors, []);
  });

  it("starts from /research in the composer, and Stop ends it and its tasks at once", async () => {
    const q = marker("q");
    const subs = [marker("s1"), marker("s2")].map((s, i) => `Slow part ${i + 1} ${s}`);
    // The message's own answer comes first (the research starts after it), then the plan.
    await script(q, [{ kind: "text", text: "I'll start a research on that." }, { kind: "text", text: JSON.stringify(subs) }]);
    for (const sub of subs) await script(sub.split(" ").at(-1), [{ kind: "text", text: "Still looking, slowly.", chunks: 20, delayMs: 500 }]);
    const thread = await createThread("stopped research");
    const { page } = await newPage({ viewport: { width: 390, height: 844 } });
    await openThread(page, thread.id);
    await send(page, `/research What changed in the tariffs this year? ${q}`);

    const card = page.getByTestId("research-card");
    await card.waitFor({ timeout: 10_000 });
    await until(async () => ["review", "running"].includes(await card.getAttribute("data-status")), { timeout: 15_000, message: "the plan never came" });
    if ((await card.getAttribute("data-status")) === "review") await card.getByTestId("research-plan-start").click();
    await until(async () => (await cardState(card)).subs.filter((s) => s === "running").length === 2, { message: "the tasks never ran" });
    await screenshot(page, "77-research-running-phone");
    await card.getByTestId("research-stop").click();
    await until(async () => (await card.getAttribute("data-status")) === "stopped", { message: "the research never stopped" });
    assert.deepEqual((await cardState(card)).subs, ["cancelled", "cancelled"]);
    assert.equal(await card.getByTestId("research-stop").count(), 0);
    const { tasks } = await api(`/api/tasks?threadId=${thread.id}`);
    assert.deepEqual(tasks.map((t) => t.status), ["cancelled", "cancelled"]);
    await screenshot(page, "78-research-stopped-phone");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
    assert.deepEqual(page.errors, []);
  });
});
