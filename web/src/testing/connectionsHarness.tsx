// The Connections UI mounted in Chromium for its unit tests (connections.test.ts): the page, the
// thread settings' group, and a tool card whose approval comes from the thread in the query cache, as
// the chat wires it.
// `fetch` is replaced: every request waits until the test answers it (so "Connecting…" and a
// posting approval can be seen), in the order they were made.
import "./processEnv";
import type { EventFrame, Thread } from "@protocol";
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import axe from "axe-core";
import { createRoot, type Root } from "react-dom/client";
import { AddServerForm } from "../components/AddServerForm";
import { approvalsState, ApprovalsContext } from "../components/approvalsState";
import { ThreadConnections } from "../components/ThreadConnections";
import { ToolCallCard } from "../components/ToolCards";
import ConnectionsPage from "../pages/ConnectionsPage";
import { cacheThreadEvent } from "../queries/threadEvents";
import { threadQuery } from "../queries/threads";

export interface Answer {
  status: number;
  body?: unknown;
}

export interface Sent {
  method: string;
  url: string;
  body: unknown;
}

const sent: Sent[] = [];
const waiting: ((answer: Answer) => void)[] = [];

window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
  sent.push({ method: init?.method ?? "GET", url: String(input), body: typeof init?.body === "string" ? JSON.parse(init.body) : null });
  return new Promise<Response>((resolve) =>
    waiting.push(({ status, body }) =>
      resolve(new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } })),
    ),
  );
};

/** The requests made so far. */
export const requests = (): Sent[] => sent;

/** Answers the oldest request still waiting, once there is one (a component asks after it renders). */
export async function answer(a: Answer): Promise<void> {
  for (let tries = 0; waiting.length === 0; tries++) {
    if (tries === 100) throw new Error("no request to answer");
    await new Promise((r) => setTimeout(r, 10));
  }
  waiting.shift()!(a);
}

let root: Root | null = null;
let client: QueryClient | null = null;

function mount(node: React.ReactNode): void {
  root?.unmount();
  sent.length = 0;
  waiting.length = 0;
  client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity }, mutations: { retry: false } } });
  document.documentElement.lang = "en";
  const el = document.createElement("div");
  document.body.replaceChildren(el);
  root = createRoot(el);
  root.render(<QueryClientProvider client={client}>{node}</QueryClientProvider>);
}

export function mountAddForm(taken: string[] = []): void {
  mount(<AddServerForm taken={taken} />);
}

/** The page in a <main>, as the app shows it (`search`: the address's query, as a redirect leaves it). */
export function mountPage(search = ""): void {
  history.replaceState(null, "", `/settings/connections${search}`);
  mount(
    <main>
      <ConnectionsPage />
    </main>,
  );
}

/** The thread's settings' Connections group, the thread as the cache has it. */
function ConnectionsOfThread({ threadId }: { threadId: string }) {
  const thread = useQuery(threadQuery(threadId)).data;
  return <main>{thread && <ThreadConnections thread={thread} />}</main>;
}

export function mountThreadConnections(thread: Thread): void {
  mount(<ConnectionsOfThread threadId={thread.id} />);
  client!.setQueryData(threadQuery(thread.id).queryKey, thread);
}

/**
 * What axe-core finds on the page as it is now that would fail the browser suite's check
 * (test/browser/a11y.test.mjs): serious or critical findings, and content outside landmarks.
 */
export async function axeViolations(): Promise<string[]> {
  const { violations } = await axe.run(document, { resultTypes: ["violations"] });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical" || v.id === "region")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** A tool call's card in `thread`, whose pending approvals are the cache's, as ChatView gives them. */
function CardOfThread({ threadId, toolUseId, input }: { threadId: string; toolUseId: string; input: unknown }) {
  const thread = useQuery(threadQuery(threadId)).data;
  return (
    <ApprovalsContext.Provider value={approvalsState(threadId, thread?.pendingApprovals)}>
      <ToolCallCard toolName="github__create_issue" toolUseId={toolUseId} input={input} />
    </ApprovalsContext.Provider>
  );
}

export function mountToolCard(thread: Thread, toolUseId: string, input: unknown): void {
  mount(
    <main>
      <CardOfThread threadId={thread.id} toolUseId={toolUseId} input={input} />
    </main>,
  );
  client!.setQueryData(threadQuery(thread.id).queryKey, thread);
}

/** A socket event of the thread, into the cache as the chat applies it. */
export function event(frame: EventFrame): void {
  cacheThreadEvent(client!, frame);
}
