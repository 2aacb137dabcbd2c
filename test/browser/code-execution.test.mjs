// Code execution in the web app (issue 35): "plot this CSV" with the CSV attached. The code card shows
// the code as the model writes it, then its output, the chart inline (full size on a click) and a
// download card for the table it wrote, with a preview; the download is the file, byte for byte; a
// reload shows the same card from the stored answer.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { barChartPng, downloadedText } from "./files.mjs";
import { createThread, finalAssistant, marker, openThread, screenshot, script, send, textOf, until, upstreamRequests, useBrowser } from "./helpers.mjs";

const { it, newPage } = useBrowser();

const SALES = "month,sales\nJan,120\nFeb,95\nMar,140\nApr,160\nMay,130\nJun,180\n";
const SUMMARY = "month,sales,share\nJan,120,0.15\nFeb,95,0.11\nMar,140,0.17\nApr,160,0.19\nMay,130,0.16\nJun,180,0.22\n";
const COMMAND = [
  "python3 - <<'EOF'",
  "import pandas as pd",
  "import matplotlib.pyplot as plt",
  "df = pd.read_csv('sales.csv')",
  "df['share'] = (df.sales / df.sales.sum()).round(2)",
  "df.to_csv('/tmp/outputs/summary.csv', index=False)",
  "ax = df.plot.bar(x='month', y='sales', legend=False)",
  "ax.set_ylabel('sales')",
  "plt.savefig('/tmp/outputs/chart.png', dpi=80)",
  "print(df.sales.describe())",
  "EOF",
].join("\n");

describe("code execution", () => {
  it("plots an attached CSV: the code card streams, the chart shows inline, the table downloads", async () => {
    const { page } = await newPage();
    const thread = await createThread("plot a CSV");
    const m = marker("plot");
    const chart = barChartPng([120, 95, 140, 160, 130, 180].map((v) => v / 200));
    await script(m, [
      {
        kind: "blocks",
        delayMs: 60,
        blocks: [
          { type: "text", text: "I'll load the CSV and plot sales by month." },
          { type: "server_tool_use", name: "bash_code_execution", input: { command: COMMAND } },
          {
            type: "bash_code_execution_tool_result",
            stdout: "count      6.0\nmean     137.5\nmax      180.0\n",
            returnCode: 0,
            delayMs: 400,
            files: [
              { name: "chart.png", mediaType: "image/png", base64: chart.toString("base64") },
              { name: "summary.csv", mediaType: "text/csv", text: SUMMARY },
            ],
          },
          { type: "text", text: "Sales peak in June at 180; the chart and a summary table are above." },
        ],
      },
    ]);
    await openThread(page, thread.id);
    await page.getByTestId("file-input").setInputFiles([{ name: "sales.csv", mimeType: "text/csv", buffer: Buffer.from(SALES) }]);
    await until(async () => (await page.locator('[data-testid="upload"][data-name="sales.csv"]').getAttribute("data-status")) === "done", { message: "the CSV did not upload" });
    await send(page, `plot this CSV ${m}`);

    // The code grows as it is written: seen part-way, then whole.
    const card = page.locator(".code-card").first();
    const code = card.locator(".code-card-code");
    const partly = await until(async () => {
      if ((await code.count()) === 0) return false;
      const text = await code.innerText();
      return text.includes("import pandas") && !text.includes("describe") ? text : false;
    }, { message: "the code card never showed the code part-way" });
    await screenshot(page, "60-code-streaming");
    await until(async () => (await code.innerText()).includes("plt.savefig('/tmp/outputs/chart.png', dpi=80)"), { message: "the code never came whole" });
    assert.ok(partly.length < COMMAND.length);

    // The output, the exit code and the duration; the chart in place; the table as a download card with its preview.
    await until(async () => (await finalAssistant(page).count()) > 0 && (await finalAssistant(page).innerText()).includes("Sales peak in June at 180"), { timeout: 20_000, message: "no stored answer" });
    const image = card.locator("img.code-card-image");
    await image.waitFor({ timeout: 20_000 });
    await until(() => image.evaluate((img) => img.complete && img.naturalWidth === 480), { message: "the chart did not load" });
    assert.match(await textOf(card.locator(".code-card-stdout")), /mean\s+137\.5/);
    assert.match(await textOf(card.locator(".code-card-status")), /exit 0/);
    const file = card.locator(".code-card-file").filter({ hasText: "summary.csv" });
    assert.match(await file.innerText(), /text\/csv/);
    await until(async () => (await file.locator(".code-card-preview").count()) > 0 && (await file.locator(".code-card-preview").innerText()).includes("Jun"), { message: "no preview of the table" });
    await screenshot(page, "61-code-card-files");
    await card.evaluate((el) => el.scrollIntoView({ block: "start" }));
    await screenshot(page, "61-code-card");
    const downloaded = await downloadedText(page, () => file.locator("button, a").first().click());
    assert.equal(downloaded.name, "summary.csv");
    assert.equal(downloaded.text, SUMMARY);

    // The CSV went to the code's container, and the model read it too.
    const [request] = await upstreamRequests(m);
    const content = request.body.messages[0].content;
    assert.ok(content.some((b) => b.type === "container_upload"), JSON.stringify(content.map((b) => b.type)));
    assert.ok(content.some((b) => b.type === "document" && b.source.data === SALES));

    // Full size in the lightbox.
    await image.click();
    const lightbox = page.getByTestId("lightbox");
    await lightbox.waitFor();
    await screenshot(page, "62-code-chart-lightbox");
    await page.keyboard.press("Escape");
    await lightbox.waitFor({ state: "detached" });

    // A reload shows the same card, from the stored answer.
    await page.reload();
    const stored = page.locator(".code-card").first();
    await stored.locator("img.code-card-image").waitFor({ timeout: 20_000 });
    assert.match(await textOf(stored.locator(".code-card-status")), /exit 0/);
    assert.ok((await stored.locator(".code-card-file").filter({ hasText: "summary.csv" }).count()) === 1);
    assert.deepEqual(page.errors, []);
  });
});
