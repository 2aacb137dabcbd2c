// Web search and fetch as a person sees them: a card per search or fetch with its sources, numbered
// references in the answer with its list of sources, live and the same after a reload; the run's
// searches in its details; a phone-sized screen.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { createThread, finalAssistant, marker, openThread, screenshot, script, send, until, useBrowser, waitForChatReady } from "./helpers.mjs";

const { it, newPage } = useBrowser();

const RESULTS = [
  { title: "London weather forecast - Met Office", url: "https://www.metoffice.gov.uk/weather/forecast/london", pageAge: "3 hours ago" },
  { title: "BBC Weather - London", url: "https://www.bbc.co.uk/weather/2643743" },
  { title: "London, UK 10-day forecast", url: "https://weather.example.com/london/10-day" },
  { title: "Will it rain in London tomorrow?", url: "https://news.example.org/rain-tomorrow" },
  { title: "Historic weather for London in June", url: "https://archive.example.net/london/june" },
];

/** A run that searches (the result takes a moment), fails to read a page, then answers with citations. */
function citedAnswer() {
  return {
    kind: "blocks",
    delayMs: 25,
    blocks: [
      { type: "text", text: "Let me check the forecast." },
      { type: "server_tool_use", name: "web_search", input: { query: "London weather tomorrow" } },
      { type: "web_search_tool_result", results: RESULTS, delayMs: 1_200 },
      { type: "server_tool_use", name: "web_fetch", input: { url: "https://paywalled.example.com/forecast" } },
      { type: "web_fetch_tool_result", errorCode: "url_not_accessible" },
      { type: "text", text: "Tomorrow London stays **dry**", citations: [{ url: RESULTS[0].url, citedText: "Dry with sunny spells on Thursday." }] },
      { type: "text", text: ", with highs of 21°C", citations: [{ url: RESULTS[1].url, citedText: "Maximum temperature 21°C." }] },
      { type: "text", text: ". Rain returns on Friday.", citations: [{ url: RESULTS[0].url, citedText: "Showers spreading from the west on Friday." }] },
    ],
  };
}

/** What a reader sees of the newest answer: its cards, its text with references, its sources. */
async function answerAsShown(page) {
  const answer = finalAssistant(page);
  return {
    cards: await answer.getByTestId("search-card").evaluateAll((cards) =>
      cards.map((c) => ({ state: c.dataset.state, text: c.innerText.trim(), links: [...c.querySelectorAll("a")].map((a) => [a.href, a.target, a.rel]) })),
    ),
    text: (await answer.locator(".bubble").innerText()).trim(),
    refs: await answer.locator(".bubble sup.cite-ref a").evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute("href")?.replace(/^#cite-.*-source-/, "#source-")])),
    sources: await answer.getByTestId("cited-source").evaluateAll((lis) => lis.map((li) => li.innerText.trim())),
  };
}

describe("web tools", () => {
  it("shows searches as cards and citations as numbered references, live and after a reload", async () => {
    const { page } = await newPage();
    const thread = await createThread("web search");
    const m = marker("web");
    await script(m, [citedAnswer()]);
    await openThread(page, thread.id);
    await send(page, `Will it rain in London tomorrow? ${m}`);

    // Live: the search shows while it runs, then what it found.
    const searching = page.locator('[data-testid="search-card"][data-state="running"]');
    await searching.waitFor({ timeout: 10_000 });
    assert.match(await searching.innerText(), /Searching: London weather tomorrow/);
    await screenshot(page, "16-search-running");

    await until(async () => (await page.locator('[data-testid="cited-source"]').count()) === 2, { message: "the sources never listed" });
    await page.getByTestId("streaming-message").waitFor({ state: "detached", timeout: 15_000 });
    const live = await answerAsShown(page);

    assert.equal(live.cards.length, 2);
    assert.equal(live.cards[0].state, "done");
    assert.match(live.cards[0].text, /^⌕\s*Searched: London weather tomorrow\s*5 results/);
    assert.match(live.cards[0].text, /Met Office.*metoffice\.gov\.uk.*3 hours ago/s);
    assert.match(live.cards[0].text, /Show 2 more/);
    for (const [href, target, rel] of live.cards[0].links) {
      assert.match(href, /^https:\/\//);
      assert.equal(target, "_blank");
      assert.equal(rel, "noopener noreferrer");
    }
    assert.equal(live.cards[1].state, "failed");
    assert.match(live.cards[1].text, /Fetch failed: url_not_accessible/);
    assert.match(live.cards[1].text, /paywalled\.example\.com/);

    // References: numbered by source in order of first use; the same source keeps its number.
    assert.equal(live.text, "Let me check the forecast.\n\nTomorrow London stays dry[1], with highs of 21°C[2]. Rain returns on Friday.[1]");
    assert.deepEqual(live.refs, [
      ["[1]", "#source-1"],
      ["[2]", "#source-2"],
      ["[1]", "#source-1"],
    ]);
    assert.equal(
      live.sources[0],
      "[1]\nLondon weather forecast - Met Office metoffice.gov.uk\nDry with sunny spells on Thursday.\nShowers spreading from the west on Friday.",
    );
    assert.equal(live.sources[1], "[2]\nBBC Weather - London bbc.co.uk\nMaximum temperature 21°C.");

    // The run's details count the search.
    await until(async () => /1 search\b/.test(await page.getByTestId("activity-line").last().innerText()), { message: "the run line never counted the search" });

    // A reference leads to its source.
    await finalAssistant(page).locator("sup.cite-ref a").nth(1).click();
    await until(async () => (await page.locator('[data-testid="cited-source"][data-flash]').getAttribute("data-n")) === "2", { message: "the source was not marked" });
    assert.equal(new URL(page.url()).hash, "", "the URL is left alone");
    await screenshot(page, "16-cited-answer");

    // Many sources fold away: the rest a click away.
    await finalAssistant(page).getByText("Show 2 more").click();
    assert.equal(await finalAssistant(page).locator('[data-testid="search-card"]').first().locator("li").count(), 5);

    await page.reload();
    await waitForChatReady(page);
    await finalAssistant(page).getByTestId("cited-sources").waitFor();
    const reloaded = await answerAsShown(page);
    assert.deepEqual(reloaded, live, "after a reload the answer reads as it did live");
    assert.match(await page.getByTestId("activity-line").last().innerText(), /1 search\b/);
    assert.match(await finalAssistant(page).getByTestId("chip-searches").innerText(), /1 search/);
    await screenshot(page, "16-cited-answer-reloaded");
    assert.deepEqual(page.errors, []);
  });

  it("fits a cited answer on a phone", async () => {
    const { page } = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const thread = await createThread("web search on a phone");
    const m = marker("web-phone");
    await script(m, [citedAnswer()]);
    await openThread(page, thread.id);
    await send(page, `Rain tomorrow? ${m}`);
    await finalAssistant(page).getByTestId("cited-sources").waitFor({ timeout: 20_000 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
    const cardOverflow = await page.getByTestId("search-card").evaluateAll((cards) => cards.map((c) => c.scrollWidth - c.clientWidth));
    assert.deepEqual(cardOverflow, [0, 0], "the search cards' content fits them");
    await finalAssistant(page).getByTestId("search-card").first().scrollIntoViewIfNeeded();
    await screenshot(page, "16-cited-answer-phone");
    assert.deepEqual(page.errors, []);
  });
});
