import type { MessageMetadata, ServerFrame, WebActivity } from "@protocol";
import { describe, expect, it } from "vitest";
import { frame, message } from "../testing/fixtures";
import { chatReducer, initialChatState, type ChatAction } from "./chatState";
import { applyWebEvent, describeWebCall, domainOf, NO_WEB, safeHref, webFromMetadata, type WebCall } from "./webActivity";

const run = { threadId: "thr_1", runId: "run_1" };
const on = (f: ServerFrame): ChatAction => ({ type: "frame", frame: f });
const sources = [
  { url: "https://www.bbc.co.uk/weather", title: "BBC Weather", pageAge: "2 hours ago" },
  { url: "https://metoffice.gov.uk/", title: "Met Office", pageAge: null },
];

/** A run that searches, reads a page, and answers with citations, as the socket delivers it. */
const searchingRun: ChatAction[] = [
  on(frame("pipeline:start", { ...run, messageId: "msg_u1" }, 1)),
  on(frame("pipeline:stream", { ...run, type: "server_tool_call", toolUseId: "srv_1", toolName: "web_search", input: { query: "weather london" } }, 2)),
  on(frame("pipeline:stream", { ...run, type: "server_tool_result", toolUseId: "srv_1", toolName: "web_search", sources }, 3)),
  on(frame("pipeline:stream", { ...run, type: "server_tool_call", toolUseId: "srv_2", toolName: "web_fetch", input: { url: "https://x.example/p" } }, 4)),
  on(frame("pipeline:stream", { ...run, type: "server_tool_result", toolUseId: "srv_2", toolName: "web_fetch", sources: [], error: "url_not_accessible" }, 5)),
  on(frame("pipeline:stream", { ...run, type: "text", delta: "It will rain." }, 6)),
  on(frame("pipeline:stream", { ...run, type: "citations", at: 13, citations: [{ url: sources[0].url, title: "BBC Weather", citedText: "Rain later" }] }, 7)),
];

const stored: WebActivity = {
  calls: [
    { toolUseId: "srv_1", toolName: "web_search", input: { query: "weather london" }, sources },
    { toolUseId: "srv_2", toolName: "web_fetch", input: { url: "https://x.example/p" }, sources: [], error: "url_not_accessible" },
  ],
  citations: [{ url: sources[0].url, title: "BBC Weather", citedText: "Rain later", at: 13 }],
};

describe("web activity from the stream", () => {
  it("builds the run's search cards and citations as the events arrive", () => {
    const state = searchingRun.reduce(chatReducer, initialChatState("thr_1"));
    const web = state.runs.run_1.web;
    expect(web.calls.map((c) => [c.toolName, c.done, c.sources.length, c.error])).toEqual([
      ["web_search", true, 2, undefined],
      ["web_fetch", true, 0, "url_not_accessible"],
    ]);
    expect(web.citations).toEqual([{ url: sources[0].url, title: "BBC Weather", citedText: "Rain later", at: 13 }]);
  });

  it("shows a search as running until its result comes", () => {
    const state = searchingRun.slice(0, 2).reduce(chatReducer, initialChatState("thr_1"));
    expect(state.runs.run_1.web.calls).toEqual([{ toolUseId: "srv_1", toolName: "web_search", input: { query: "weather london" }, sources: [], done: false }]);
  });

  it("reads the same after a reload as it did live", () => {
    const live = searchingRun.reduce(chatReducer, initialChatState("thr_1")).runs.run_1.web;
    const reloaded = webFromMetadata(message({ role: "assistant", metadata: { runId: "run_1", web: stored } }).metadata);
    expect(reloaded).toEqual(live);
  });

  it("gives a card to a result whose call it missed, and ignores a call seen twice or a citation without an offset", () => {
    let web = applyWebEvent(NO_WEB, { ...run, type: "server_tool_result", toolUseId: "srv_9", toolName: "web_search", sources });
    expect(web.calls[0]).toMatchObject({ toolUseId: "srv_9", input: null, done: true });
    const call = { ...run, type: "server_tool_call" as const, toolUseId: "srv_9", toolName: "web_search", input: {} };
    expect(applyWebEvent(web, call)).toBe(web);
    web = applyWebEvent(web, { ...run, type: "citations", at: -1, citations: [{ url: "u", title: null, citedText: "t" }] });
    expect(web.citations).toEqual([]);
  });
});

describe("webFromMetadata", () => {
  it("has nothing for an answer without web activity", () => {
    expect(webFromMetadata({})).toBeNull();
    expect(webFromMetadata({ web: { calls: [], citations: [] } })).toBeNull();
    expect(webFromMetadata({ web: "nonsense" } as unknown as MessageMetadata)).toBeNull();
  });

  it("leaves out what does not have the expected shape", () => {
    // Stored JSON, as an older or odd writer may have left it.
    const meta = {
      web: {
        calls: [{ toolUseId: 1 }, { toolUseId: "s", toolName: "web_search", input: {}, sources: [{ url: "https://a.example/" }, { title: "no url" }] }],
        citations: [{ url: "https://a.example/", at: "5" }, { url: "https://a.example/", title: 7, citedText: "q", at: 5 }],
      },
    } as unknown as MessageMetadata;
    const web = webFromMetadata(meta);
    expect(web).toEqual({
      calls: [{ toolUseId: "s", toolName: "web_search", input: {}, sources: [{ url: "https://a.example/", title: null }], done: true }],
      citations: [{ url: "https://a.example/", title: null, citedText: "q", at: 5 }],
    });
  });
});

describe("describeWebCall", () => {
  const call = (over: Partial<WebCall>): WebCall => ({ toolUseId: "s", toolName: "web_search", input: { query: "q" }, sources: [], done: true, ...over });

  it("says what was searched or read, and how it went", () => {
    expect(describeWebCall(call({ done: false }))).toEqual({ verb: "Searching", subject: "q", state: "running" });
    expect(describeWebCall(call({}))).toEqual({ verb: "Searched", subject: "q", state: "done" });
    expect(describeWebCall(call({ error: "max_uses_exceeded" }))).toEqual({ verb: "Search failed", subject: "q", state: "failed" });
    expect(describeWebCall(call({ toolName: "web_fetch", input: { url: "https://a.example/" } }))).toEqual({ verb: "Read", subject: "https://a.example/", state: "done" });
    expect(describeWebCall(call({ toolName: "web_fetch", input: {}, error: "url_not_accessible" })).verb).toBe("Fetch failed");
  });

  it("links only to http(s) sources, and names them by domain", () => {
    expect(safeHref("https://www.example.com/a?b=1")).toBe("https://www.example.com/a?b=1");
    expect(safeHref("javascript:alert(1)")).toBeNull();
    expect(safeHref("not a url")).toBeNull();
    expect(domainOf("https://www.example.com/a")).toBe("example.com");
    expect(domainOf("odd")).toBe("odd");
  });
});
