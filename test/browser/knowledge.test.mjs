// Project knowledge in the web app (issue 36): a Word document and a workbook uploaded to a project
// are indexed (their rows say ready, with their sections, sheets and passages); the project's search
// box shows what retrieval gives; a thread of the project asks a question whose answer cites a
// passage of each, and a citation chip opens the cited text with its file and place.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe } from "node:test";
import { docx, prose, xlsx } from "../extract/ooxml-builder.ts";
import { APP_URL, api, marker, openThread, screenshot, script, send, until, upstreamRequests, useBrowser } from "./helpers.mjs";

const { it, newPage } = useBrowser();

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const FACT = "The backup generator is tested every second Tuesday at 07:30.";

/** A handbook of 30 chapters (about 40,000 characters: past a quarter of claude-fake-small's window), chapter 12 holding the fact. */
function handbook() {
  const blocks = [];
  for (let i = 1; i <= 30; i++) blocks.push({ heading: `Chapter ${i}` }, { p: `${i === 12 ? `${FACT} ` : ""}${prose(200, i)}` });
  return Buffer.from(docx(blocks));
}

const FUEL = [["site", "fuel (litres)", "last refill"], ["north", 420, "2026-10-02"], ["generator yard", 880, "2026-11-14"], ["south", 310, "2026-09-30"]];

describe("project knowledge", () => {
  it("indexes a DOCX and an XLSX, searches them, and an answer's citation chips open the cited passages", async () => {
    const { page } = await newPage();
    const tag = randomUUID().slice(0, 8);
    const { project } = await api("/api/projects", { body: { name: `Facilities ${tag}` } });
    await page.goto(`${APP_URL}/projects/${project.id}`);
    await page.getByTestId("project-file-input").setInputFiles([
      { name: "handbook.docx", mimeType: DOCX, buffer: handbook() },
      { name: "fuel.xlsx", mimeType: XLSX, buffer: Buffer.from(xlsx([{ name: "Fuel", rows: FUEL }, { name: "Notes", rows: [["note"], ["refill before winter"]] }])) },
    ]);
    const row = (name) => page.getByTestId("project-file").filter({ hasText: name });
    for (const name of ["handbook.docx", "fuel.xlsx"]) {
      await until(async () => (await row(name).count()) > 0 && (await row(name).getAttribute("data-status")) === "ready", { timeout: 20_000, message: `${name} was not indexed` });
    }
    assert.match(await row("fuel.xlsx").innerText(), /2 sheets/);
    assert.match(await row("handbook.docx").innerText(), /passages/);

    // What retrieval gives for a question.
    await page.getByTestId("project-search-input").fill("When is the generator tested?");
    await page.getByTestId("project-search-submit").click();
    await page.getByTestId("project-search-result").first().waitFor();
    const found = await page.getByTestId("project-search-result").allInnerTexts();
    assert.ok(found.some((r) => /handbook\.docx/.test(r) && /Chapter 12/.test(r) && r.includes("second Tuesday")), found.join("\n---\n"));
    await screenshot(page, "63-project-knowledge");

    // A thread of the project, on a model whose window makes it retrieve: the answer cites a passage of each file.
    const { thread } = await api("/api/threads", { body: { name: "Generator", projectId: project.id, model: "claude-fake-small" } });
    const m = marker("cite");
    await script(m, [
      {
        kind: "blocks",
        blocks: [
          { type: "text", text: "It is tested every second Tuesday at 07:30", citations: [{ searchResult: 0 }] },
          { type: "text", text: ", and the generator yard holds 880 litres of fuel.", citations: [{ searchResult: 1 }] },
        ],
      },
    ]);
    await openThread(page, thread.id);
    await send(page, `When is the generator tested, and how much fuel does the generator yard hold? ${m}`);
    const chips = page.getByTestId("citation-chip");
    await until(async () => (await chips.count()) >= 2, { timeout: 20_000, message: "no citation chips under the answer" });
    const [request] = await upstreamRequests(m);
    const sources = request.body.messages[0].content.filter((b) => b.type === "search_result").map((b) => b.title);
    assert.ok(sources.slice(0, 2).some((t) => t.startsWith("handbook.docx")) && sources.slice(0, 2).some((t) => t.startsWith("fuel.xlsx")), JSON.stringify(sources));
    const labels = await chips.allInnerTexts();
    assert.ok(labels.some((l) => /handbook\.docx/.test(l) && /Chapter 12/.test(l)), labels.join(" | "));
    assert.ok(labels.some((l) => /fuel\.xlsx/.test(l) && /sheet Fuel, row/.test(l)), labels.join(" | "));
    await screenshot(page, "64-citation-chips");

    await chips.filter({ hasText: "handbook.docx" }).first().click();
    const panel = page.getByTestId("citation-panel");
    await panel.waitFor();
    assert.match(await panel.innerText(), /second Tuesday at 07:30/);
    // The file itself is a click away: a Word document downloads under its name.
    assert.equal(await panel.getByTestId("citation-open").innerText(), "Open handbook.docx");
    await screenshot(page, "65-citation-panel");
    assert.deepEqual(page.errors, []);
  });
});
