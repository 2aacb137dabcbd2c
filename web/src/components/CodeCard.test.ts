// The code card rendered to markup (no DOM needed): its code growing as it is written, its running,
// done, failed and stopped states, its output, its files (images in place, the others as download
// cards with a preview), the container's notice; and a stored answer's metadata.codeRuns as the same cards.
import type { CodeRunView, MessageMetadata, ProducedFile } from "@protocol";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { message } from "../testing/fixtures";
import { AttachmentSourceContext } from "./attachmentSource";
import { CodeCard, CodeContainerNotice } from "./CodeCard";
import { MessageItem } from "./MessageItem";

// The sanitizer needs a DOM (its own suite runs in Chromium); nothing here renders the model's markdown.
vi.mock("../lib/safeHtml", () => ({ sanitizeModelHtml: (html: string) => html }));
// The router reads the page's location; a stored answer's links are not what is tested here.
vi.mock("../lib/router", () => ({ Link: () => null, threadPath: (id: string) => `/t/${id}` }));

const withQueries = (node: ReactNode) => createElement(QueryClientProvider, { client: new QueryClient() }, node);
const render = (run: CodeRunView, active = false) => renderToStaticMarkup(withQueries(createElement(CodeCard, { run, active })));
/** A class attribute holding `className` as one of its names. */
const classAttr = (className: string, flags = "") => new RegExp(`class="(?:[^"]*\\s)?${className}(?:\\s[^"]*)?"`, flags);
/** The text of the element with `className` (the first), tags taken out. */
function textOf(html: string, className: string): string | null {
  const at = html.search(classAttr(className));
  if (at < 0) return null;
  const open = html.lastIndexOf("<", at);
  const tag = /^<(\w+)/.exec(html.slice(open))![1];
  const end = html.indexOf(`</${tag}>`, at);
  return html
    .slice(html.indexOf(">", at) + 1, end)
    .replace(/<[^>]+>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}
const count = (html: string, className: string) => html.match(classAttr(className, "g"))?.length ?? 0;

const file = (over: Partial<ProducedFile> = {}): ProducedFile => ({
  id: "file_1",
  threadId: "thr_1",
  runId: "run_1",
  name: "chart.png",
  mediaType: "image/png",
  bytes: 20_480,
  createdAt: 1,
  ...over,
});
const codeRun = (over: Partial<CodeRunView> = {}): CodeRunView => ({ toolUseId: "srvtoolu_1", toolName: "bash_code_execution", input: null, partial: "", files: [], done: false, ...over });
const command = "python3 - <<'EOF'\nimport pandas as pd\nprint(pd.read_csv('/tmp/d.csv').head())\nEOF";

describe("the code card", () => {
  it("shows the code as it is written, highlighted, decoded from the JSON so far", () => {
    const html = render(codeRun({ partial: JSON.stringify({ command }).slice(0, 40) }), true);
    expect(html).toContain('data-state="writing"');
    expect(textOf(html, "code-card-code")).toBe(command.slice(0, 27));
    expect(html).toContain('class="hljs language-bash"');
    expect(textOf(html, "code-card-status")).toBe("writing…");
  });

  it("runs once its input is whole, until its output comes", () => {
    const html = render(codeRun({ input: { command }, partial: JSON.stringify({ command }) }), true);
    expect(html).toContain('data-state="running"');
    expect(textOf(html, "code-card-code")).toBe(command);
    expect(textOf(html, "code-card-status")).toBe("running…");
  });

  it("says stopped when its run ended without its output", () => {
    const html = render(codeRun({ input: { command } }), false);
    expect(html).toContain('data-state="stopped"');
    expect(textOf(html, "code-card-status")).toBe("stopped");
  });

  it("shows the output, the exit code and the duration, and the files", () => {
    const files = [
      file(),
      file({ id: "file_2", name: "data.csv", mediaType: "text/csv", bytes: 2_300 }),
      file({ id: "file_3", name: "diagram.svg", mediaType: "image/svg+xml", bytes: 900 }),
    ];
    const html = render(codeRun({ input: { command }, done: true, stdout: "   a  b\n0  1  2\n", stderr: "warning: x", returnCode: 0, durationMs: 1_234, files, skipped: [{ name: "big.bin", reason: "too large" }] }));
    expect(html).toContain('data-state="done"');
    expect(textOf(html, "code-card-status")).toBe("exit 0 · 1.2s");
    expect(textOf(html, "code-card-stdout")).toBe("   a  b\n0  1  2\n");
    expect(textOf(html, "code-card-stderr")).toBe("warning: x");
    // The PNG in place (its image appears once its bytes are fetched), the CSV and the SVG as download cards.
    expect(count(html, "code-card-figure")).toBe(1);
    expect(count(html, "code-card-file")).toBe(2);
    expect(html).toContain("data.csv");
    expect(html).toContain("text/csv · 2.2 KB");
    expect(html).toContain('aria-label="Download data.csv"');
    expect(html).toContain('aria-label="Download diagram.svg"');
    expect(html).toContain('aria-label="Download chart.png"');
    // The CSV's preview is fetched once its card shows; the SVG has none.
    expect(count(html, "code-card-preview")).toBe(1);
    expect(textOf(html, "code-card-skipped")).toContain("big.bin — too large");
  });

  it("shows a failure: a non-zero exit, an API error code", () => {
    const exit = render(codeRun({ input: { command }, done: true, stderr: "Traceback", returnCode: 1, files: [] }));
    expect(exit).toContain('data-state="failed"');
    expect(textOf(exit, "code-card-status")).toBe("exit 1");
    const error = render(codeRun({ input: { command }, done: true, error: "execution_time_exceeded", files: [] }));
    expect(textOf(error, "code-card-error")).toBe("The code ran out of time execution_time_exceeded");
  });

  it("folds long code as a tool card folds its input", () => {
    const long = Array.from({ length: 80 }, (_, i) => `echo ${i}`).join("\n");
    const html = render(codeRun({ input: { command: long }, done: true, returnCode: 0, files: [] }));
    expect(textOf(html, "code-card-code")!.length).toBeLessThan(long.length);
    expect(html).toContain(`Show all (${long.length.toLocaleString()} chars)`);
  });

  it("reads a shared conversation's files from the share (a share the owner gave them to)", () => {
    const run = codeRun({ input: { command }, done: true, returnCode: 0, files: [file(), file({ id: "f2", name: "d.csv", mediaType: "text/csv" })] });
    const html = renderToStaticMarkup(withQueries(createElement(AttachmentSourceContext.Provider, { value: { shareId: "shr_1" } }, createElement(CodeCard, { run, active: false }))));
    expect(count(html, "code-card-figure")).toBe(1);
    expect(count(html, "code-card-file")).toBe(1);
    expect(count(html, "code-card-preview")).toBe(1);
  });
});

describe("the container's notice", () => {
  it("says why the code's files and variables are not there", () => {
    expect(renderToStaticMarkup(createElement(CodeContainerNotice, { notice: { status: "expired" } }))).toContain("container had expired");
    expect(renderToStaticMarkup(createElement(CodeContainerNotice, { notice: { status: "new", reason: "branch" } }))).toContain("This branch runs its code in a new container");
  });
});

describe("a stored answer with metadata.codeRuns", () => {
  it("shows the same cards, done", () => {
    const metadata = {
      runId: "run_1",
      codeRuns: [{ toolUseId: "srvtoolu_1", toolName: "bash_code_execution", input: { command: "ls" }, stdout: "d.csv\n", returnCode: 0, durationMs: 50, files: [file()] }],
    } as unknown as MessageMetadata;
    const html = renderToStaticMarkup(withQueries(createElement(MessageItem, { message: message({ id: "msg_a", role: "assistant", content: "", metadata }) })));
    expect(count(html, "code-card")).toBe(1);
    expect(html).toContain('data-state="done"');
    expect(textOf(html, "code-card-status")).toBe("exit 0 · 50ms");
  });
});
