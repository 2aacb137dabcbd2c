// A project's knowledge in Chromium (it needs a DOM), against a fake of the project's routes: the
// file list polled while a file processes, "Process again" on a failed one, a document sent with its
// type and refused with the reason next to it, the search box's passages; an answer's citation chip
// opening the panel with the cited text highlighted, and its button opening the file (a PDF in a tab at
// its page, a workbook downloaded, a deleted file said to be gone). axe-core checks what the a11y suite would.
import type { DocumentCitation, KnowledgeResult, Message, ProjectFile } from "@protocol";
import { DOCX_TYPE } from "@protocol";
import { readFile } from "node:fs/promises";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chromiumPageForSuite, hasChromium, type ChromiumPage } from "../testing/chromiumPage";
import { message } from "../testing/fixtures";

interface Harness {
  setFiles(files: ProjectFile[]): void;
  setResults(results: KnowledgeResult[]): void;
  setUploadAnswer(status: number, body: unknown): void;
  setBytes(fileId: string, file: { type: string; body: string; name: string }): void;
  requests(): string[];
  showProject(): void;
  showAnswer(message: Message): void;
  reset(): void;
  axeViolations(): Promise<string[]>;
}

let chromium: ChromiumPage;
const call = <K extends keyof Harness>(name: K, ...args: Parameters<Harness[K]>) =>
  chromium.page.evaluate(({ name, args }) => (window as unknown as { knowledge: Record<string, (...a: unknown[]) => unknown> }).knowledge[name](...args), {
    name,
    args: args as unknown[],
  }) as Promise<Awaited<ReturnType<Harness[K]>>>;
const byTestId = (id: string) => chromium.page.getByTestId(id);

const file = (over: Partial<ProjectFile>): ProjectFile => ({
  id: "pfl_1",
  projectId: "prj_1",
  name: "report.pdf",
  mediaType: "application/pdf",
  bytes: 40_960,
  createdAt: Date.now(),
  status: "ready",
  ...over,
});

describe.skipIf(!hasChromium)("project knowledge (in Chromium)", () => {
  chromium = chromiumPageForSuite("src/testing/knowledgeHarness.tsx", "knowledge");
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

  it("polls the list while a file processes, until it is ready with its pages and passages", async () => {
    await call("setFiles", [file({ status: "processing" })]);
    await call("showProject");
    const row = byTestId("project-file");
    await expect.poll(() => row.getAttribute("data-status")).toBe("processing");
    expect(await row.getByTestId("project-file-status").textContent()).toBe("Processing…");
    await call("setFiles", [file({ pages: 37, passages: 120 })]);
    await expect.poll(() => row.getAttribute("data-status"), { timeout: 5_000 }).toBe("ready");
    expect(await row.getByTestId("project-file-status").textContent()).toBe("Ready · 37 pages · 120 passages");
    const lists = (await call("requests")).filter((r) => r === "GET /api/projects/prj_1/files").length;
    expect(lists).toBeGreaterThanOrEqual(2);
    // Nothing processes: the list is not read again.
    await chromium.page.waitForTimeout(2_500);
    expect((await call("requests")).filter((r) => r === "GET /api/projects/prj_1/files").length).toBe(lists);
    expect(await call("axeViolations")).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it("processes a failed file again: it shows processing, then ready", async () => {
    await call("setFiles", [file({ status: "failed", error: "The PDF is encrypted" })]);
    await call("showProject");
    const row = byTestId("project-file");
    await expect.poll(() => row.getByTestId("project-file-status").textContent()).toBe("Failed: The PDF is encrypted");
    await row.getByTestId("project-file-reprocess").click();
    await expect.poll(() => row.getAttribute("data-status")).toBe("processing");
    expect(await call("requests")).toContain("POST /api/projects/prj_1/files/pfl_1/reprocess");
    expect(await row.getByTestId("project-file-reprocess").count()).toBe(0);
    await call("setFiles", [file({ pages: 2, passages: 3 })]);
    await expect.poll(() => row.getAttribute("data-status"), { timeout: 5_000 }).toBe("ready");
  });

  it("sends a Word document with its type, and shows why the server refused it next to it", async () => {
    await call("showProject");
    await call("setUploadAnswer", 422, { error: { code: "unprocessable", message: "This file could not be read as a Word document" } });
    await byTestId("project-file-input").setInputFiles([{ name: "notes.docx", mimeType: "", buffer: Buffer.from("PK\u0003\u0004 not really") }]);
    const refused = byTestId("project-upload");
    await expect.poll(() => refused.getAttribute("data-status")).toBe("failed");
    expect(await refused.textContent()).toContain("notes.docx");
    expect(await refused.getByTestId("project-upload-error").textContent()).toBe("Not added: This file could not be read as a Word document");
    expect(await call("requests")).toContain(`POST /api/projects/prj_1/files?name=notes.docx ${DOCX_TYPE}`);
    await refused.getByTestId("project-upload-dismiss").click();
    expect(await refused.count()).toBe(0);

    // Past the project's bound: 413, said the same way; a file that went in is listed.
    await call("setUploadAnswer", 413, { error: { code: "too_large", message: "This project has 500 files, the most it may have; delete some first" } });
    await byTestId("project-file-input").setInputFiles([{ name: "main.ts", mimeType: "video/mp2t", buffer: Buffer.from("export {};\n") }]);
    await expect.poll(() => byTestId("project-upload-error").textContent()).toBe("Not added: This project has 500 files, the most it may have; delete some first");
    expect(await call("requests")).toContain("POST /api/projects/prj_1/files?name=main.ts text/plain");
    const kept = file({ id: "pfl_9", name: "brief.md", mediaType: "text/markdown", passages: 2 });
    await call("setUploadAnswer", 201, { file: kept });
    await call("setFiles", [kept]);
    await byTestId("project-file-input").setInputFiles([{ name: "brief.md", mimeType: "", buffer: Buffer.from("# Brief\n") }]);
    await expect.poll(() => byTestId("project-file").getAttribute("data-file-id")).toBe("pfl_9");
    // A new choice clears the last one's refusals.
    expect(await byTestId("project-upload").count()).toBe(0);
    expect(warnings).toEqual([]);
  });

  it("lists what retrieval gives for a question, or says there is nothing", async () => {
    await call("setResults", [
      { fileId: "pfl_1", name: "report.pdf", location: { page: 37 }, text: "Revenue rose 12% in Q3. ".repeat(30), score: 7.125 },
      { fileId: "pfl_2", name: "sales.xlsx", location: { sheet: "Q3", row: 12 }, text: "EMEA | 4.1M", score: 3.5 },
    ]);
    await call("showProject");
    await byTestId("project-search-input").fill("revenue in Q3");
    await byTestId("project-search-input").press("Enter");
    const results = byTestId("project-search-result");
    await expect.poll(() => results.count()).toBe(2);
    expect(await call("requests")).toContain("GET /api/projects/prj_1/search?q=revenue+in+Q3");
    expect(await results.nth(0).textContent()).toContain("page 37");
    expect(await results.nth(1).textContent()).toContain("sheet Q3, row 12");
    // The long passage is clamped (the harness has no styles: its class says so), and shows whole on demand.
    const text = results.nth(0).getByTestId("project-search-text");
    expect(await text.getAttribute("class")).toContain("is-clamped");
    expect(await results.nth(1).getByTestId("project-search-text").getAttribute("class")).not.toContain("is-clamped");
    await results.nth(0).getByRole("button", { name: "Show all" }).click();
    await expect.poll(() => text.getAttribute("class")).not.toContain("is-clamped");
    expect(await results.nth(0).getByRole("button", { name: "Show less" }).getAttribute("aria-expanded")).toBe("true");
    expect(await call("axeViolations")).toEqual([]);

    await call("setResults", []);
    await byTestId("project-search-input").fill("zebras");
    await byTestId("project-search-input").press("Enter");
    await expect.poll(() => byTestId("project-search-empty").textContent()).toBe("Nothing in this project's files matches “zebras”.");
    expect(warnings).toEqual([]);
  });

  it("opens a citation chip's passage: the file, the place and the cited text highlighted", async () => {
    const citations: DocumentCitation[] = [
      { projectId: "prj_1", fileId: "pfl_1", name: "report.pdf", location: { page: 37 }, citedText: "Revenue rose 12% in Q3." },
      { projectId: "prj_1", fileId: "pfl_2", name: "sales.xlsx", location: { sheet: "Q3", row: 12 }, citedText: "EMEA | 4.1M" },
    ];
    await call("showAnswer", message({ id: "msg_a", role: "assistant", content: "Revenue rose 12%, led by EMEA.", metadata: { citations } }));
    const chips = byTestId("citation-chip");
    expect(await chips.allTextContents()).toEqual(["❝report.pdf · page 37", "❝sales.xlsx · sheet Q3, row 12"]);
    await chips.nth(1).click();
    const panel = byTestId("citation-panel");
    await panel.waitFor();
    expect(await panel.evaluate((d: HTMLDialogElement) => d.open)).toBe(true);
    expect(await panel.getByRole("heading").textContent()).toBe("sales.xlsx");
    expect(await panel.getByTestId("citation-panel-place").textContent()).toBe("Sheet Q3, row 12");
    expect(await panel.locator("mark").textContent()).toBe("EMEA | 4.1M");
    expect(await panel.getByTestId("citation-open").textContent()).toBe("Open sales.xlsx");
    expect(await call("axeViolations")).toEqual([]);
    await chromium.page.keyboard.press("Escape");
    await panel.waitFor({ state: "detached" });
    expect(warnings).toEqual([]);
  });

  it("opens the cited file: a PDF in a new tab at its page, a workbook downloaded under its name, a deleted one said to be gone", async () => {
    const PDF = "%PDF-1.4\n% a report\n";
    const SHEET = "PK\u0003\u0004 a workbook";
    await call("setBytes", "pfl_1", { type: "application/pdf", body: PDF, name: "report.pdf" });
    await call("setBytes", "pfl_2", { type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", body: SHEET, name: "sales.xlsx" });
    const citations: DocumentCitation[] = [
      { projectId: "prj_1", fileId: "pfl_1", name: "report.pdf", location: { page: 37 }, citedText: "Revenue rose 12% in Q3." },
      { projectId: "prj_1", fileId: "pfl_2", name: "sales.xlsx", location: { sheet: "Q3", row: 12 }, citedText: "EMEA | 4.1M" },
      { projectId: "prj_1", fileId: "pfl_gone", name: "old.docx", location: { heading: "Leave" }, citedText: "Ten days." },
    ];
    await call("showAnswer", message({ id: "msg_a", role: "assistant", content: "Revenue rose 12%.", metadata: { citations } }));
    const chips = byTestId("citation-chip");
    const panel = byTestId("citation-panel");
    const open = panel.getByTestId("citation-open");

    await chips.nth(0).click();
    expect(await open.textContent()).toBe("Open report.pdf at page 37");
    const [popup] = await Promise.all([chromium.page.waitForEvent("popup"), open.click()]);
    await expect.poll(() => popup.url()).toMatch(/^blob:http:\/\/unit\.test\/[\w-]+#page=37$/);
    expect(await popup.evaluate(() => window.opener)).toBeNull();
    expect(await call("requests")).toContain("GET /api/projects/prj_1/files/pfl_1");
    await popup.close();
    // The cited text stays as it was.
    expect(await panel.locator("mark").textContent()).toBe("Revenue rose 12% in Q3.");
    expect(await panel.getByTestId("citation-open-error").count()).toBe(0);
    await chromium.page.keyboard.press("Escape");
    await panel.waitFor({ state: "detached" });

    await chips.nth(1).click();
    expect(await open.textContent()).toBe("Open sales.xlsx");
    const [download] = await Promise.all([chromium.page.waitForEvent("download"), open.click()]);
    expect(download.suggestedFilename()).toBe("sales.xlsx");
    expect(await readFile((await download.path())!, "utf8")).toBe(SHEET);
    await chromium.page.keyboard.press("Escape");
    await panel.waitFor({ state: "detached" });

    await chips.nth(2).click();
    expect(await open.textContent()).toBe("Open old.docx");
    await open.click();
    await expect.poll(() => panel.getByTestId("citation-open-error").textContent()).toBe("This file is no longer in the project.");
    expect(await panel.locator("mark").textContent()).toBe("Ten days.");
    expect(await open.isEnabled()).toBe(true);
    expect(await call("axeViolations")).toEqual([]);
    expect(warnings).toEqual([]);
  });
});
