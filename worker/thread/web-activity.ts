import { applyWebEvent, NO_WEB, type StreamEvent, type WebActivity } from "../../protocol";

/**
 * A run's web searches and fetches (with what each found) and its answer's citations, from its
 * stream events, folded as its clients folded them live: kept in the answer's metadata, so the
 * search cards and numbered references of a reloaded thread are those they saw.
 */
export function webActivityOf(events: StreamEvent[]): WebActivity | undefined {
  const web = events.reduce(applyWebEvent, NO_WEB);
  if (!web.calls.length && !web.citations.length) return undefined;
  return { calls: web.calls.map(({ done: _, ...call }) => call), citations: web.citations };
}
