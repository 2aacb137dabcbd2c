// Citation chips rendered to markup (no DOM needed): a stored answer's metadata.citations and a
// streaming run's live document citations as chips under the text, and the panel a chip opens.
import { passageSource, passageTitle, type DocumentCitation } from "@protocol";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { applyStream, newRun } from "../lib/liveRun";
import { citationChips } from "../lib/projectKnowledge";
import { message } from "../testing/fixtures";
import { CitationPanel } from "./DocumentCitations";
import { MessageItem } from "./MessageItem";
import { RunGroup } from "./RunGroup";

// The sanitizer needs a DOM (its own suite runs in Chromium); the answer's markdown is not what is tested here.
vi.mock("../lib/safeHtml", () => ({ sanitizeModelHtml: (html: string) => html }));
vi.mock("../lib/router", () => ({ Link: () => null, threadPath: (id: string) => `/t/${id}` }));

/** The run a stream event belongs to. */
const ref = { threadId: "thr_1", runId: "run_1" };
const withQueries = (node: ReactNode) => createElement(QueryClientProvider, { client: new QueryClient() }, node);
const render = (node: ReactNode) => renderToStaticMarkup(withQueries(node));
const decode = (s: string) => s.replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
/** The labels of the chips in the markup, in order. */
const chipLabels = (html: string) => [...html.matchAll(/class="citation-chip-label">([^<]*)</g)].map((m) => decode(m[1]));

const cited: DocumentCitation[] = [
  { projectId: "prj_1", fileId: "pfl_1", name: "report.pdf", location: { page: 37 }, citedText: "Revenue rose 12% in Q3." },
  { projectId: "prj_1", fileId: "pfl_2", name: "sales.xlsx", location: { sheet: "Q3", row: 12 }, citedText: "EMEA | 4.1M" },
  { projectId: "prj_1", fileId: "pfl_1", name: "report.pdf", location: { page: 37 }, citedText: "Costs fell." },
];

describe("citation chips", () => {
  it("shows a stored answer's metadata.citations as chips under its text, one per file and place", () => {
    const html = render(createElement(MessageItem, { message: message({ id: "msg_a", role: "assistant", content: "Revenue rose.", metadata: { citations: cited } }) }));
    expect(chipLabels(html)).toEqual(["report.pdf · page 37", "sales.xlsx · sheet Q3, row 12"]);
    expect(html.match(/data-testid="citation-chip"/g)).toHaveLength(2);
    expect(html).toContain('data-file-id="pfl_2"');
    // Under the text: after the bubble.
    expect(html.indexOf("citation-chip")).toBeGreaterThan(html.indexOf("bubble-assistant"));
    // Nothing opens until a chip is clicked.
    expect(html).not.toContain('data-testid="citation-panel"');
  });

  it("shows no chips for an answer that cites no document", () => {
    const html = render(createElement(MessageItem, { message: message({ role: "assistant", content: "Hello", metadata: {} }) }));
    expect(html).not.toContain("document-citations");
  });

  it("shows a streaming answer's live document citations, and not as numbered web sources", () => {
    let run = newRun("run_1", "msg_u1", 0);
    run = applyStream(run, { ...ref, type: "text", delta: "See slide 3." }, "k1");
    const location = { slide: 3 };
    run = applyStream(run, { ...ref, type: "citations", at: 12, citations: [{ url: passageSource({ projectId: "prj_1" }, "pfl_3", location), title: passageTitle("deck.pptx", location), citedText: "Roadmap 2026" }] }, "k2");
    const html = render(createElement(RunGroup, { run, final: null, retryContent: null, onRetry: () => {} }));
    expect(html).toContain('data-testid="streaming-message"');
    expect(chipLabels(html)).toEqual(["deck.pptx · slide 3"]);
    expect(html).not.toContain('data-testid="cited-sources"');
  });

  it("keeps the live chips on the stored answer when it came without metadata.citations", () => {
    let run = newRun("run_1", "msg_u1", 0);
    run = applyStream(run, { ...ref, type: "citations", at: 0, citations: [{ url: passageSource({ projectId: "prj_1" }, "pfl_1", { page: 2 }), title: "a.pdf (page 2)", citedText: "x" }] }, "k1");
    run = { ...run, status: "complete" };
    const final = message({ id: "msg_a", role: "assistant", content: "Done", metadata: { runId: "run_1" } });
    const html = render(createElement(RunGroup, { run, final, retryContent: null, onRetry: () => {} }));
    expect(chipLabels(html)).toEqual(["a.pdf · page 2"]);
  });
});

describe("the citation panel", () => {
  it("shows the file's name, the place and each cited passage highlighted", () => {
    const [chip] = citationChips(cited);
    const html = render(createElement(CitationPanel, { chip, onClose: () => {} }));
    expect(html).toContain('data-testid="citation-panel"');
    expect(html).toMatch(/<h2[^>]*>report\.pdf<\/h2>/);
    expect(html).toMatch(/data-testid="citation-panel-place">Page 37</);
    expect([...html.matchAll(/<mark data-testid="citation-panel-text">([^<]*)<\/mark>/g)].map((m) => m[1])).toEqual(["Revenue rose 12% in Q3.", "Costs fell."]);
  });

  it("names a spreadsheet's sheet and row, and a deck's slide", () => {
    const [, sheet] = citationChips(cited);
    expect(render(createElement(CitationPanel, { chip: sheet, onClose: () => {} }))).toMatch(/data-testid="citation-panel-place">Sheet Q3, row 12</);
    const [slide] = citationChips([{ projectId: "prj_1", fileId: "pfl_3", name: "deck.pptx", location: { slide: 3 }, citedText: "" }]);
    const html = render(createElement(CitationPanel, { chip: slide, onClose: () => {} }));
    expect(html).toMatch(/data-testid="citation-panel-place">Slide 3</);
    expect(html).toContain("without quoting it");
  });

  it("keeps the cited text, and offers to open the file: at its page for a PDF, else by its name", () => {
    const [pdf, sheet] = citationChips(cited);
    const html = render(createElement(CitationPanel, { chip: pdf, onClose: () => {} }));
    expect(html).toMatch(/<button[^>]*data-testid="citation-open"[^>]*>Open report\.pdf at page 37<\/button>/);
    // After the cited text, which stays as it was.
    expect(html.indexOf('data-testid="citation-open"')).toBeGreaterThan(html.lastIndexOf("citation-panel-text"));
    expect(html).not.toContain("citation-open-error");
    expect(render(createElement(CitationPanel, { chip: sheet, onClose: () => {} }))).toMatch(/data-testid="citation-open"[^>]*>Open sales\.xlsx</);
    const [doc] = citationChips([{ projectId: "prj_1", fileId: "pfl_4", name: "handbook.docx", location: { heading: "Leave" }, citedText: "x" }]);
    expect(render(createElement(CitationPanel, { chip: doc, onClose: () => {} }))).toMatch(/data-testid="citation-open"[^>]*>Open handbook\.docx</);
  });

  it("offers no button for an answer stored before citations named their project", () => {
    const [chip] = citationChips([{ projectId: "", fileId: "pfl_1", name: "report.pdf", location: { page: 2 }, citedText: "x" }]);
    const html = render(createElement(CitationPanel, { chip, onClose: () => {} }));
    expect(html).toContain('data-testid="citation-panel-text"');
    expect(html).not.toContain('data-testid="citation-open"');
  });
});
