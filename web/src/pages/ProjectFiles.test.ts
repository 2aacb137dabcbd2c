// A project's files and its search results rendered to markup (no DOM needed): each file's type, size
// and indexing status, "Process again" on a failed one; a passage with its file, place and score.
import { XLSX_TYPE, type KnowledgeResult, type ProjectFile } from "@protocol";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { projectFilesQuery } from "../queries/projects";
import { ProjectFiles } from "./ProjectFiles";
import { SearchResult } from "./ProjectSearch";

const file = (over: Partial<ProjectFile>): ProjectFile => ({
  id: "pfl_1",
  projectId: "prj_1",
  name: "report.pdf",
  mediaType: "application/pdf",
  bytes: 2_048,
  createdAt: Date.now(),
  status: "ready",
  ...over,
});

function renderFiles(files: ProjectFile[]) {
  const client = new QueryClient();
  client.setQueryData(projectFilesQuery("prj_1").queryKey, files);
  return renderToStaticMarkup(createElement(QueryClientProvider, { client }, createElement(ProjectFiles, { projectId: "prj_1" })));
}

/** Each file row's status and status text, in order. */
const rows = (html: string) =>
  [...html.matchAll(/data-testid="project-file" data-file-id="([^"]+)" data-status="([^"]+)"[\s\S]*?data-testid="project-file-status">([\s\S]*?)<\/span>/g)].map(
    (m) => [m[1], m[2], m[3].replace(/<[^>]+>/g, "")],
  );

describe("the project's files", () => {
  it("lists each file with its type, size and status", () => {
    const html = renderFiles([
      file({ id: "pfl_1", pages: 37, passages: 120 }),
      file({ id: "pfl_2", name: "sales.xlsx", mediaType: XLSX_TYPE, pages: 3, passages: 40 }),
      file({ id: "pfl_3", name: "big.pdf", status: "processing" }),
      file({ id: "pfl_4", name: "locked.pdf", status: "failed", error: "The PDF is encrypted" }),
    ]);
    expect(rows(html)).toEqual([
      ["pfl_1", "ready", "Ready · 37 pages · 120 passages"],
      ["pfl_2", "ready", "Ready · 3 sheets · 40 passages"],
      ["pfl_3", "processing", "Processing…"],
      ["pfl_4", "failed", "Failed: The PDF is encrypted"],
    ]);
    expect(html).toContain("PDF · 2.0 KB");
    expect(html).toContain("Excel workbook · 2.0 KB");
    // "Process again" on the failed file only.
    expect(html.match(/data-testid="project-file-reprocess"/g)).toHaveLength(1);
    expect(html).toMatch(/data-file-id="pfl_4"[\s\S]*project-file-reprocess[\s\S]*<\/li>/);
  });

  it("offers the document types in the file picker, and says when there are no files", () => {
    const html = renderFiles([]);
    expect(html).toContain("No files yet.");
    const accept = /data-testid="project-file-input"/.test(html) ? /accept="([^"]+)"/.exec(html)![1] : "";
    expect(accept.split(",")).toEqual(expect.arrayContaining([".docx", ".xlsx", ".pptx", ".html", ".json", "application/pdf"]));
  });

  it("polls the list every 2 s while a file processes, and not otherwise", () => {
    const { refetchInterval } = projectFilesQuery("prj_1");
    const at = (files: ProjectFile[]) => (refetchInterval as (q: { state: { data: ProjectFile[] } }) => number | false)({ state: { data: files } });
    expect(at([file({ status: "processing" }), file({})])).toBe(2_000);
    expect(at([file({}), file({ status: "failed" })])).toBe(false);
  });
});

describe("a search result", () => {
  const result = (over: Partial<KnowledgeResult>): KnowledgeResult => ({ fileId: "pfl_1", name: "report.pdf", location: { page: 37 }, text: "Revenue rose.", score: 7.125, ...over });
  const render = (r: KnowledgeResult) => renderToStaticMarkup(createElement(SearchResult, { result: r }));

  it("shows the file, the place, the passage and the score", () => {
    const html = render(result({}));
    expect(html).toContain('data-testid="project-search-result"');
    expect(html).toContain(">report.pdf<");
    expect(html).toContain(">page 37<");
    expect(html).toContain("score 7.13");
    expect(html).toMatch(/class="project-search-text" data-testid="project-search-text">Revenue rose\.</);
    expect(html).not.toContain("Show all");
  });

  it("clamps a long passage to a few lines, with a button to show it all", () => {
    const html = render(result({ location: { sheet: "Q3", row: 12 }, text: "word ".repeat(100) }));
    expect(html).toContain(">sheet Q3, row 12<");
    expect(html).toContain("project-search-text is-clamped");
    expect(html).toMatch(/aria-expanded="false"[^>]*>Show all</);
  });
});
