import { DOCX_TYPE, passageSource, passageTitle, PPTX_TYPE, XLSX_TYPE, type Citation, type DocumentCitation, type ProjectFile, type ServerFrame } from "@protocol";
import { describe, expect, it } from "vitest";
import { ApiError } from "../api";
import { frame } from "../testing/fixtures";
import { chatReducer, initialChatState, type ChatAction } from "./chatState";
import { applyStream, newRun } from "./liveRun";
import {
  anyProcessing,
  applyDocumentCitations,
  citationChips,
  documentsFromMetadata,
  fileKind,
  FILE_GONE,
  formatScore,
  likelyPdf,
  openErrorText,
  openLabel,
  pagesUnit,
  passageIsLong,
  placeHeading,
  statusOf,
  statusText,
} from "./projectKnowledge";

/** The run a stream event belongs to. */
const ref = { threadId: "thr_1", runId: "run_1" };
const file = (over: Partial<ProjectFile> = {}): ProjectFile => ({
  id: "pfl_1",
  projectId: "prj_1",
  name: "report.pdf",
  mediaType: "application/pdf",
  bytes: 1000,
  createdAt: 1,
  status: "ready",
  ...over,
});

/** A citation as the model streams it back: its source names the file and place (protocol's knowledge.ts). */
const cite = (fileId: string, name: string, location: DocumentCitation["location"], citedText: string): Citation => ({
  url: passageSource({ projectId: "prj_1" }, fileId, location),
  title: passageTitle(name, location),
  citedText,
});

describe("a project file's status", () => {
  it("says processing, ready with its pages, sheets or slides and passages, or failed with why", () => {
    expect(statusText(file({ status: "processing" }))).toBe("Processing…");
    expect(statusText(file({ pages: 37, passages: 120 }))).toBe("Ready · 37 pages · 120 passages");
    expect(statusText(file({ mediaType: XLSX_TYPE, pages: 1, passages: 1 }))).toBe("Ready · 1 sheet · 1 passage");
    expect(statusText(file({ mediaType: PPTX_TYPE, pages: 12, passages: 30 }))).toBe("Ready · 12 slides · 30 passages");
    expect(statusText(file({ mediaType: "text/markdown", passages: 4 }))).toBe("Ready · 4 passages");
    expect(statusText(file({ mediaType: "image/png", passages: 0 }))).toBe("Ready");
    expect(statusText(file({ passages: 2_500 }))).toBe("Ready · 2,500 passages");
    expect(statusText(file({ status: "failed", error: "The PDF is encrypted" }))).toBe("Failed: The PDF is encrypted");
    expect(statusText(file({ status: "failed" }))).toBe("Failed: its text could not be extracted");
  });

  it("reads a status it does not know as processing, and polls while any file processes", () => {
    expect(statusOf({ status: "queued" as never })).toBe("processing");
    expect(anyProcessing(undefined)).toBe(false);
    expect(anyProcessing([file(), file({ status: "failed" })])).toBe(false);
    expect(anyProcessing([file(), file({ status: "processing" })])).toBe(true);
  });

  it("names a file's type and what its pages count", () => {
    expect(fileKind("application/pdf")).toBe("PDF");
    expect(fileKind(DOCX_TYPE)).toBe("Word document");
    expect(fileKind(XLSX_TYPE)).toBe("Excel workbook");
    expect(fileKind(PPTX_TYPE)).toBe("PowerPoint deck");
    expect(fileKind("text/html")).toBe("HTML");
    expect(fileKind("image/webp")).toBe("WEBP image");
    expect(pagesUnit("application/pdf")).toBe("page");
    expect(pagesUnit(XLSX_TYPE)).toBe("sheet");
    expect(pagesUnit(PPTX_TYPE)).toBe("slide");
  });
});

describe("search results", () => {
  it("clamps a long passage, and shows the score small", () => {
    expect(passageIsLong("short")).toBe(false);
    expect(passageIsLong("x".repeat(281))).toBe(true);
    expect(passageIsLong("a\nb\nc\nd\ne")).toBe(true);
    expect(formatScore(7.12345)).toBe("7.12");
    expect(formatScore(-0.5)).toBe("-0.50");
    expect(formatScore(1234.5)).toBe("1235");
    expect(formatScore(Number.NaN)).toBe("–");
  });
});

describe("citation chips", () => {
  const stored: DocumentCitation[] = [
    { projectId: "prj_1", fileId: "pfl_1", name: "report.pdf", location: { page: 37 }, citedText: "Revenue rose 12%." },
    { projectId: "prj_1", fileId: "pfl_2", name: "sales.xlsx", location: { sheet: "Q3", row: 12 }, citedText: "EMEA 4.1M" },
    { projectId: "prj_1", fileId: "pfl_1", name: "report.pdf", location: { page: 37 }, citedText: "Costs fell." },
    { projectId: "prj_1", fileId: "pfl_1", name: "report.pdf", location: { page: 37 }, citedText: "Revenue rose 12%." },
    { projectId: "prj_1", fileId: "pfl_3", name: "deck.pptx", location: { slide: 3 }, citedText: "Roadmap" },
    { projectId: "prj_1", fileId: "pfl_4", name: "notes.md", location: { heading: "Pricing" }, citedText: "" },
  ];

  it("makes one chip per file and place, in order of first citation, with each passage once", () => {
    const chips = citationChips(stored);
    expect(chips.map((c) => c.label)).toEqual(["report.pdf · page 37", "sales.xlsx · sheet Q3, row 12", "deck.pptx · slide 3", "notes.md · Pricing"]);
    expect(chips[0].quotes).toEqual(["Revenue rose 12%.", "Costs fell."]);
    expect(chips[3].quotes).toEqual([]);
    expect(new Set(chips.map((c) => c.key)).size).toBe(4);
    expect(citationChips(null)).toEqual([]);
  });

  it("keeps the project a chip's file was cited in", () => {
    expect(citationChips([{ ...stored[0], projectId: "prj_2" }]).map((c) => [c.projectId, c.fileId])).toEqual([["prj_2", "pfl_1"]]);
  });

  it("reads a stored answer's metadata.citations, leaving out what is not shaped as one (one stored before they named their project has none)", () => {
    expect(documentsFromMetadata({})).toBeNull();
    expect(documentsFromMetadata({ citations: [] })).toBeNull();
    const odd = [
      ...stored.slice(0, 2),
      { projectId: "prj_1", fileId: "pfl_9", name: "x.pdf", location: { page: "3" }, citedText: "no" },
      { name: "no id", location: { page: 1 }, citedText: "no" },
      "junk",
      { fileId: "pfl_5", name: "y.pdf", location: { page: 2 } },
    ];
    expect(documentsFromMetadata({ citations: odd as never })).toEqual([...stored.slice(0, 2), { projectId: "", fileId: "pfl_5", name: "y.pdf", location: { page: 2 }, citedText: "" }]);
  });

  it("takes the document citations of a live citations event and leaves the web's", () => {
    const web: Citation = { url: "https://example.com/a", title: "A", citedText: "web text" };
    const docs = applyDocumentCitations([], [web, cite("pfl_1", "report (final).pdf", { page: 37 }, "Revenue rose 12%."), cite("pfl_2", "sales.xlsx", { sheet: "Q3", row: 12 }, "EMEA 4.1M")]);
    expect(docs).toEqual([
      { projectId: "prj_1", fileId: "pfl_1", name: "report (final).pdf", location: { page: 37 }, citedText: "Revenue rose 12%." },
      { projectId: "prj_1", fileId: "pfl_2", name: "sales.xlsx", location: { sheet: "Q3", row: 12 }, citedText: "EMEA 4.1M" },
    ]);
    const same = applyDocumentCitations(docs, [web]);
    expect(same).toBe(docs);
  });

  it("heads the panel with the place in words", () => {
    expect(placeHeading({ page: 37 })).toBe("Page 37");
    expect(placeHeading({ sheet: "Sales", row: 12 })).toBe("Sheet Sales, row 12");
    expect(placeHeading({ sheet: "", row: 4 })).toBe("Row 4");
    expect(placeHeading({ slide: 3 })).toBe("Slide 3");
    expect(placeHeading({ heading: "Pricing" })).toBe("Section: Pricing");
    expect(placeHeading({ heading: "" })).toBe("At the start");
  });
});

describe("opening a cited file", () => {
  it("labels the button with the page for a PDF's, else with the file's name alone", () => {
    expect(openLabel("report.pdf", { page: 37 })).toBe("Open report.pdf at page 37");
    expect(openLabel("sales.xlsx", { sheet: "Q3", row: 12 })).toBe("Open sales.xlsx");
    expect(openLabel("deck.pptx", { slide: 3 })).toBe("Open deck.pptx");
    expect(openLabel("handbook.docx", { heading: "Leave" })).toBe("Open handbook.docx");
    expect(openLabel("notes.md", { heading: "" })).toBe("Open notes.md");
  });

  it("expects a PDF for a page or a .pdf name", () => {
    expect(likelyPdf("report.pdf", { page: 37 })).toBe(true);
    expect(likelyPdf("scan", { page: 1 })).toBe(true);
    expect(likelyPdf("Report.PDF", { heading: "" })).toBe(true);
    expect(likelyPdf("sales.xlsx", { sheet: "Q3", row: 12 })).toBe(false);
    expect(likelyPdf("handbook.docx", { heading: "Leave" })).toBe(false);
  });

  it("says a file the server no longer has is no longer in the project, and any other failure as it is", () => {
    expect(openErrorText(new ApiError(404, "not_found", "No such file in this project"))).toBe(FILE_GONE);
    expect(FILE_GONE).toBe("This file is no longer in the project.");
    expect(openErrorText(new ApiError(500, "internal", "Something broke"))).toBe("Something broke");
    expect(openErrorText(new Error("offline"))).toBe("offline");
  });
});

describe("a live run's document citations", () => {
  it("folds a citations event's documents into the run and its web citations into the web's", () => {
    let run = newRun("run_1", "msg_u1", 0);
    run = applyStream(run, { ...ref, type: "text", delta: "Revenue rose." }, "k1");
    run = applyStream(
      run,
      { ...ref, type: "citations", at: 13, citations: [cite("pfl_1", "report.pdf", { page: 37 }, "Revenue rose 12%."), { url: "https://example.com", title: "Ex", citedText: "web" }] },
      "k2",
    );
    expect(run.documents).toEqual([{ projectId: "prj_1", fileId: "pfl_1", name: "report.pdf", location: { page: 37 }, citedText: "Revenue rose 12%." }]);
    expect(run.web.citations.map((c) => c.url)).toEqual(["https://example.com"]);
    expect(citationChips(run.documents).map((c) => c.label)).toEqual(["report.pdf · page 37"]);
  });

  it("keeps them through the chat reducer, from the socket's frames", () => {
    const on = (f: ServerFrame): ChatAction => ({ type: "frame", frame: f });
    const state = [
      { type: "loaded", messages: [], hasOlder: false } as ChatAction,
      on(frame("pipeline:start", { ...ref, messageId: "msg_u1" }, 1)),
      on(frame("pipeline:stream", { ...ref, type: "text", delta: "See the deck." }, 2)),
      on(frame("pipeline:stream", { ...ref, type: "citations", at: 13, citations: [cite("pfl_3", "deck.pptx", { slide: 3 }, "Roadmap")] }, 3)),
    ].reduce(chatReducer, initialChatState("thr_1"));
    expect(citationChips(state.runs.run_1.documents).map((c) => c.label)).toEqual(["deck.pptx · slide 3"]);
  });
});
