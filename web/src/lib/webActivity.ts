// A run's web searches and fetches (the search cards) and its answer's citations, the same whether
// they come from the live stream (pipeline:stream server_tool_call / server_tool_result /
// citations) or, after a reload, from the stored answer's metadata.web.

import { WEB_FETCH_TOOL, WEB_SEARCH_TOOL, type CitationAt, type MessageMetadata, type WebCall, type WebSource, type WebView } from "@protocol";
import { isRecord } from "./untrusted";

// The fold from stream events is the protocol's, shared with the object that stores metadata.web.
export { applyWebEvent, NO_WEB, type CitationAt, type WebCall, type WebView } from "@protocol";

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

function sourceOf(v: unknown): WebSource | null {
  if (!isRecord(v) || typeof v.url !== "string") return null;
  return { url: v.url, title: str(v.title), ...("pageAge" in v ? { pageAge: str(v.pageAge) } : {}) };
}

/**
 * metadata.web of a stored answer, or null when it has none. Metadata is open JSON: anything that
 * does not have the expected shape is left out rather than trusted.
 */
export function webFromMetadata(meta: MessageMetadata): WebView | null {
  const web = meta.web as unknown;
  if (!isRecord(web)) return null;
  const calls: WebCall[] = [];
  for (const c of Array.isArray(web.calls) ? web.calls : []) {
    if (!isRecord(c) || typeof c.toolUseId !== "string" || typeof c.toolName !== "string") continue;
    const sources = (Array.isArray(c.sources) ? c.sources : []).map(sourceOf).filter((s): s is WebSource => s !== null);
    calls.push({ toolUseId: c.toolUseId, toolName: c.toolName, input: c.input, sources, ...(typeof c.error === "string" ? { error: c.error } : {}), done: true });
  }
  const citations: CitationAt[] = [];
  for (const c of Array.isArray(web.citations) ? web.citations : []) {
    if (!isRecord(c) || typeof c.url !== "string" || typeof c.at !== "number") continue;
    citations.push({ url: c.url, title: str(c.title), citedText: str(c.citedText) ?? "", at: c.at });
  }
  return calls.length || citations.length ? { calls, citations } : null;
}

export interface WebCallSummary {
  /** "Searched", "Reading", "Search failed", … */
  verb: string;
  /** The query or the URL. */
  subject: string;
  state: "running" | "done" | "failed";
}

/** The card's heading: what was searched or read, and how it went. */
export function describeWebCall(call: WebCall): WebCallSummary {
  const input = isRecord(call.input) ? call.input : {};
  const state = call.error ? "failed" : call.done ? "done" : "running";
  if (call.toolName === WEB_SEARCH_TOOL) {
    const verb = { running: "Searching", done: "Searched", failed: "Search failed" }[state];
    return { verb, subject: str(input.query) ?? "", state };
  }
  if (call.toolName === WEB_FETCH_TOOL) {
    const verb = { running: "Reading", done: "Read", failed: "Fetch failed" }[state];
    return { verb, subject: str(input.url) ?? call.sources[0]?.url ?? "", state };
  }
  const verb = { running: "Using", done: "Used", failed: "Failed" }[state];
  return { verb: `${verb} ${call.toolName}`, subject: "", state };
}

/** A link target only for http(s) URLs: a source's URL comes from the web, not from us. */
export function safeHref(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:" ? u.href : null;
  } catch {
    return null;
  }
}

/** "example.com" for https://www.example.com/a/b (what a reader recognises a source by). */
export function domainOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return url;
  }
}
