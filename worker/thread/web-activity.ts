import type { StreamEvent, WebActivity } from "../../protocol";

/**
 * A run's web searches and fetches (with what each found) and its answer's citations, from its
 * stream events: kept in the answer's metadata, so the search cards and numbered references of a
 * reloaded thread are those its clients saw live.
 */
export function webActivityOf(events: StreamEvent[]): WebActivity | undefined {
  const calls: WebActivity["calls"] = [];
  const citations: WebActivity["citations"] = [];
  for (const e of events) {
    if (e.type === "server_tool_call") calls.push({ toolUseId: e.toolUseId, toolName: e.toolName, input: e.input, sources: [] });
    else if (e.type === "server_tool_result") {
      const call = calls.find((c) => c.toolUseId === e.toolUseId);
      if (call) Object.assign(call, { sources: e.sources }, e.error ? { error: e.error } : {});
    } else if (e.type === "citations") citations.push(...e.citations.map((c) => ({ ...c, at: e.at })));
  }
  return calls.length || citations.length ? { calls, citations } : undefined;
}
