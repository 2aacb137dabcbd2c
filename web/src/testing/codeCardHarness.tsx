// Code cards mounted in Chromium for their unit tests (codeCard.dom.test.ts): a run's cards as an
// answer shows them, and the container's notice. `fetch` is replaced: a produced file's route answers
// the bytes the test gave for it (as the Worker does: its type, Content-Disposition: attachment).
import "./processEnv";
import type { CodeRunView } from "@protocol";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import axe from "axe-core";
import { createRoot, type Root } from "react-dom/client";
import { CodeCards, CodeContainerNotice } from "../components/CodeCard";
import type { ContainerNotice } from "../lib/liveRun";

const files = new Map<string, { body: Uint8Array; type: string; name: string }>();
const asked: string[] = [];

window.fetch = async (input: RequestInfo | URL) => {
  const url = String(input);
  asked.push(url);
  const file = files.get(url);
  if (!file) return new Response(JSON.stringify({ error: { code: "not_found", message: "No such file" } }), { status: 404, headers: { "Content-Type": "application/json" } });
  return new Response(new Blob([file.body as BlobPart]), { headers: { "Content-Type": file.type, "Content-Disposition": `attachment; filename="${file.name}"` } });
};

/** What the file route answers for `url`: bytes given as base64 (a PNG) or as text. */
export function serveFile(url: string, name: string, type: string, data: { base64?: string; text?: string }): void {
  const body = data.base64 !== undefined ? Uint8Array.from(atob(data.base64), (c) => c.charCodeAt(0)) : new TextEncoder().encode(data.text ?? "");
  files.set(url, { body, type, name });
}

/** The URLs fetched so far. */
export const requests = (): string[] => asked;

let root: Root | null = null;
let client: QueryClient | null = null;

/** The cards of `runs` (`active`: their run still goes), and the container's notice when given; again: the same cards, updated. */
export function show(runs: CodeRunView[], active: boolean, notice?: ContainerNotice): void {
  if (!root) {
    client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    document.documentElement.lang = "en";
    const el = document.createElement("div");
    document.body.replaceChildren(el);
    root = createRoot(el);
  }
  root.render(
    <QueryClientProvider client={client!}>
      <main>
        {notice && <CodeContainerNotice notice={notice} />}
        <CodeCards runs={runs} active={active} />
      </main>
    </QueryClientProvider>,
  );
}

/** A fresh page: no cards, no cache. */
export function reset(): void {
  root?.unmount();
  root = null;
  asked.length = 0;
}

/** What axe-core finds that would fail the browser suite's check (serious or critical findings). */
export async function axeViolations(): Promise<string[]> {
  const { violations } = await axe.run(document, { resultTypes: ["violations"] });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}
