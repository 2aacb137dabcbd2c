// Code cards in Chromium (they need a DOM): the code growing as the model writes it, a chart the code
// made shown in place (fetched with the app's credentials, as an object URL) and full size on a click,
// a CSV as a download card with its first rows, downloaded under its name; a run stopped without
// output; axe-core checks what the a11y suite would.
import type { CodeRunView, ProducedFile } from "@protocol";
import { readFile } from "node:fs/promises";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chromiumPageForSuite, hasChromium, type ChromiumPage } from "../testing/chromiumPage";

interface Harness {
  show(runs: CodeRunView[], active: boolean, notice?: { status: "expired" } | { status: "new"; reason: "branch" }): void;
  reset(): void;
  serveFile(url: string, name: string, type: string, data: { base64?: string; text?: string }): void;
  requests(): string[];
  axeViolations(): Promise<string[]>;
}

let chromium: ChromiumPage;
const call = <K extends keyof Harness>(name: K, ...args: Parameters<Harness[K]>) =>
  chromium.page.evaluate(({ name, args }) => (window as unknown as { code: Record<string, (...a: unknown[]) => unknown> }).code[name](...args), {
    name,
    args: args as unknown[],
  }) as Promise<ReturnType<Harness[K]>>;
const $ = (selector: string) => chromium.page.locator(selector);

/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const CSV = ["month,sales", ...Array.from({ length: 14 }, (_, i) => `${i + 1},${(i + 1) * 10}`)].join("\n") + "\n";

const file = (over: Partial<ProducedFile>): ProducedFile => ({ id: "file_1", threadId: "thr_1", runId: "run_1", name: "chart.png", mediaType: "image/png", bytes: 70, createdAt: 1, ...over });
const chart = file({});
const data = file({ id: "file_2", name: "sales.csv", mediaType: "text/csv", bytes: CSV.length });
const command = "python3 - <<'EOF'\nimport pandas as pd\ndf = pd.read_csv('/tmp/sales.csv')\ndf.plot().figure.savefig('/tmp/outputs/chart.png')\nEOF";
const json = JSON.stringify({ command });
const codeRun = (over: Partial<CodeRunView>): CodeRunView => ({ toolUseId: "srvtoolu_1", toolName: "bash_code_execution", input: null, partial: "", files: [], done: false, ...over });

describe.skipIf(!hasChromium)("code cards (in Chromium)", () => {
  chromium = chromiumPageForSuite("src/testing/codeCardHarness.tsx", "code");
  const warnings: string[] = [];
  beforeAll(() => {
    chromium.page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") warnings.push(m.text());
    });
    chromium.page.on("pageerror", (e) => warnings.push(e.message));
  });
  beforeEach(async () => {
    await call("reset");
    warnings.length = 0;
  });

  it("shows the code growing as the model writes it, then running", async () => {
    await call("show", [codeRun({ partial: json.slice(0, 30) })], true);
    const first = await $(".code-card-code").textContent();
    expect(first).toBe(command.slice(0, 17));
    expect(await $(".code-card-status").textContent()).toBe("writing…");
    await call("show", [codeRun({ partial: json.slice(0, 60) })], true);
    await expect.poll(() => $(".code-card-code").textContent()).toBe(JSON.parse(json.slice(0, 60) + '"}').command);
    await call("show", [codeRun({ partial: json, input: { command } })], true);
    await expect.poll(() => $(".code-card-status").textContent()).toBe("running…");
    expect(await $(".code-card-code").textContent()).toBe(command);
    expect(await $(".code-card-code .hljs-string").count()).toBeGreaterThan(0);
    expect(warnings).toEqual([]);
  });

  it("shows the chart in place and full size, the CSV as a download card with its first rows", async () => {
    await call("serveFile", "/api/threads/thr_1/files/file_1", "chart.png", "image/png", { base64: PNG });
    await call("serveFile", "/api/threads/thr_1/files/file_2", "sales.csv", "text/csv", { text: CSV });
    const done = codeRun({ partial: json, input: { command }, done: true, stdout: "saved\n", stderr: "", returnCode: 0, durationMs: 2_345, files: [chart, data] });
    await call("show", [done], false, { status: "expired" });

    expect(await $(".code-card-status").textContent()).toBe("exit 0 · 2.3s");
    expect(await $(".code-card-stdout").textContent()).toBe("saved\n");
    expect(await $(".code-container-notice").textContent()).toContain("container had expired");

    const image = $("img.code-card-image");
    await image.waitFor();
    expect(await image.getAttribute("src")).toMatch(/^blob:/);
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);

    // The CSV's header and its first ten rows, and a word that there are more.
    const preview = $(".code-card-file .code-card-preview");
    await preview.locator("table").waitFor();
    expect(await preview.locator("th").allTextContents()).toEqual(["month", "sales"]);
    expect(await preview.locator("tbody tr").count()).toBe(10);
    expect(await preview.textContent()).toContain("More rows in the file");
    // Each file fetched once, the preview's read from the same bytes.
    expect((await call("requests")).sort()).toEqual(["/api/threads/thr_1/files/file_1", "/api/threads/thr_1/files/file_2"]);

    const [download] = await Promise.all([chromium.page.waitForEvent("download"), $(".code-card-file button").click()]);
    expect(download.suggestedFilename()).toBe("sales.csv");
    expect(await readFile((await download.path())!, "utf8")).toBe(CSV);

    await $(".code-card-thumb").click();
    await $("[data-testid=lightbox]").waitFor();
    expect(await $("[data-testid=lightbox] img").getAttribute("src")).toBe(await image.getAttribute("src"));
    await chromium.page.keyboard.press("Escape");
    await expect.poll(() => $("[data-testid=lightbox]").count()).toBe(0);

    expect(await call("axeViolations")).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it("says stopped, not running, when its run ended without its output", async () => {
    await call("show", [codeRun({ partial: json, input: { command } })], true);
    expect(await $(".code-card").getAttribute("aria-busy")).toBe("true");
    await call("show", [codeRun({ partial: json, input: { command } })], false);
    await expect.poll(() => $(".code-card-status").textContent()).toBe("stopped");
    expect(await $(".code-card").getAttribute("aria-busy")).toBeNull();
    expect(await $(".code-card").getAttribute("data-state")).toBe("stopped");
  });

  it("shows an API error and stderr as errors", async () => {
    await call("show", [codeRun({ input: { command: "sleep 999" }, done: true, error: "execution_time_exceeded", stderr: "Killed", files: [], skipped: [{ name: "big.bin", reason: "over the 10 MiB limit" }] })], false);
    expect(await $(".code-card-error").textContent()).toContain("The code ran out of time");
    expect(await $(".code-card-stderr").textContent()).toBe("Killed");
    expect(await $(".code-card-skipped").textContent()).toContain("big.bin");
    expect(await $(".code-card").getAttribute("data-state")).toBe("failed");
    expect(await call("axeViolations")).toEqual([]);
  });
});
