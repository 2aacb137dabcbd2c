// A run's web activity (its searches and fetches, and its answer's citations) folded from its stream
// events: by the web app as they come, and by the object when it stores the answer's metadata.web, so
// a reloaded thread shows what its clients saw live.
import { isCodeTool } from "./code-activity";
import { KNOWLEDGE_SCHEME } from "./knowledge";
import type { StreamEvent } from "./events";
import type { WebActivity } from "./shapes";

/** A search or fetch, and whether its result came (a stored one always has). */
export type WebCall = WebActivity["calls"][number] & { done: boolean };

export type CitationAt = WebActivity["citations"][number];

export interface WebView {
  calls: WebCall[];
  citations: CitationAt[];
}

export const NO_WEB: WebView = { calls: [], citations: [] };

/** `web` with one more stream event applied; events of other kinds leave it as it is. */
export function applyWebEvent(web: WebView, e: StreamEvent): WebView {
  switch (e.type) {
    case "server_tool_call":
      // Code runs are server tools too; their cards are code-activity.ts's.
      if (isCodeTool(e.toolName) || web.calls.some((c) => c.toolUseId === e.toolUseId)) return web;
      return { ...web, calls: [...web.calls, { toolUseId: e.toolUseId, toolName: e.toolName, input: e.input, sources: [], done: false }] };
    case "server_tool_result": {
      const result = { sources: e.sources ?? [], ...(e.error ? { error: e.error } : {}), done: true };
      const known = web.calls.some((c) => c.toolUseId === e.toolUseId);
      // A result whose call was missed (a page that joined mid-run) still gets its card.
      const calls = known
        ? web.calls.map((c) => (c.toolUseId === e.toolUseId ? { ...c, ...result } : c))
        : [...web.calls, { toolUseId: e.toolUseId, toolName: e.toolName, input: null, ...result }];
      return { ...web, calls };
    }
    case "citations": {
      // A project's passages are cited too; those are documents, not the web's (knowledge.ts).
      const pages = e.citations.filter((c) => !c.url.startsWith(KNOWLEDGE_SCHEME));
      if (!(e.at >= 0) || pages.length === 0) return web;
      return { ...web, citations: [...web.citations, ...pages.map((c) => ({ ...c, at: e.at }))] };
    }
    default:
      return web;
  }
}
