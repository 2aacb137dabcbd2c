// A project's knowledge mounted in Chromium for its unit tests (projectKnowledge.dom.test.ts): the
// project page's files and search, and an answer with its citation chips. `fetch` and XMLHttpRequest
// (the upload's) are replaced by a fake of the project's routes, whose files, bytes and answers the test sets.
import "./processEnv";
import type { KnowledgeResult, Message, ProjectFile } from "@protocol";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import axe from "axe-core";
import type { ReactNode } from "react";
import { createRoot, type Root } from "react-dom/client";
import { MessageItem } from "../components/MessageItem";
import { ProjectFiles } from "../pages/ProjectFiles";
import { ProjectSearch } from "../pages/ProjectSearch";

const PROJECT = "/api/projects/prj_1";
let files: ProjectFile[] = [];
let results: KnowledgeResult[] = [];
let uploadAnswer: { status: number; body: unknown } = { status: 201, body: {} };
/** The files' bytes GET /api/projects/prj_1/files/:fileId serves (any other file: 404). */
let bytes: Record<string, { type: string; body: string; name: string }> = {};
const asked: string[] = [];

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  const url = new URL(String(input), location.href);
  const method = init?.method ?? "GET";
  asked.push(`${method} ${url.pathname}${url.search}`);
  if (method === "GET" && url.pathname === `${PROJECT}/files`) return json({ files });
  if (method === "GET" && url.pathname === `${PROJECT}/search`) return json({ results });
  const served = new RegExp(`^${PROJECT}/files/([^/]+)$`).exec(url.pathname);
  if (method === "GET" && served) {
    const file = bytes[served[1]];
    if (!file) return json({ error: { code: "not_found", message: "No such file in this project" } }, 404);
    return new Response(file.body, { headers: { "Content-Type": file.type, "Content-Disposition": `inline; filename="${file.name}"` } });
  }
  const reprocess = new RegExp(`^${PROJECT}/files/([^/]+)/reprocess$`).exec(url.pathname);
  if (method === "POST" && reprocess) {
    const file = files.find((f) => f.id === reprocess[1]);
    if (!file) return json({ error: { code: "not_found", message: "No such file in this project" } }, 404);
    const { error: _, ...rest } = file;
    files = files.map((f) => (f.id === file.id ? { ...rest, status: "processing" } : f));
    return json({ file: files.find((f) => f.id === file.id) }, 202);
  }
  return json({ error: { code: "not_found", message: "Not found" } }, 404);
};

/** The upload's XMLHttpRequest: it answers `uploadAnswer`, and records the type the file was sent with. */
class FakeXhr {
  status = 0;
  responseText = "";
  upload: { onprogress?: (e: { loaded: number; total: number; lengthComputable: boolean }) => void } = {};
  onload?: () => void;
  onerror?: () => void;
  onabort?: () => void;
  private method = "";
  private url = "";
  private headers: Record<string, string> = {};
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name.toLowerCase()] = value;
  }
  getResponseHeader() {
    return null;
  }
  abort() {}
  send(body: Blob) {
    asked.push(`${this.method} ${this.url} ${this.headers["content-type"]}`);
    setTimeout(() => {
      this.upload.onprogress?.({ loaded: body.size, total: body.size, lengthComputable: true });
      this.status = uploadAnswer.status;
      this.responseText = JSON.stringify(uploadAnswer.body);
      this.onload?.();
    }, 10);
  }
}
(window as unknown as { XMLHttpRequest: unknown }).XMLHttpRequest = FakeXhr;

/** The project's files as the list route answers them from now on. */
export const setFiles = (list: ProjectFile[]) => void (files = list);
/** What search answers from now on. */
export const setResults = (list: KnowledgeResult[]) => void (results = list);
/** The bytes the file route serves for a file from now on. */
export const setBytes = (fileId: string, file: { type: string; body: string; name: string }) => void (bytes = { ...bytes, [fileId]: file });
/** What the next uploads are answered. */
export const setUploadAnswer = (status: number, body: unknown) => void (uploadAnswer = { status, body });
/** The requests made so far: "METHOD /path?query" (an upload's with its Content-Type after). */
export const requests = (): string[] => [...asked];

let root: Root | null = null;

function mount(node: ReactNode): void {
  root?.unmount();
  document.documentElement.lang = "en";
  const el = document.createElement("main");
  document.body.replaceChildren(el);
  root = createRoot(el);
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  root.render(<QueryClientProvider client={client}>{node}</QueryClientProvider>);
}

/** The project page's files and search. */
export const showProject = () =>
  mount(
    <>
      <h1>Project</h1>
      <ProjectFiles projectId="prj_1" />
      <ProjectSearch projectId="prj_1" />
    </>,
  );

/** An assistant's stored answer. */
export const showAnswer = (message: Message) =>
  mount(
    <>
      <h1>Thread</h1>
      <MessageItem message={message} />
    </>,
  );

/** A fresh page and a fresh fake. */
export function reset(): void {
  root?.unmount();
  root = null;
  files = [];
  results = [];
  bytes = {};
  asked.length = 0;
  uploadAnswer = { status: 201, body: {} };
}

/** What axe-core finds that would fail the browser suite's check (serious or critical findings). */
export async function axeViolations(): Promise<string[]> {
  const { violations } = await axe.run(document, { resultTypes: ["violations"] });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}
