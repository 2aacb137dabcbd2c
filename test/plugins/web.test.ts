// Web search and web fetch (the Messages API's server tools) through real runs: what the request
// offers, what clients see as it streams, what the answer keeps for a reload, what the transcript
// sends back, what a search costs, and the plugin's settings.
import { afterEach, describe, expect, it } from "vitest";
import { offlineFetch } from "../../worker/invoker/offline";
import { api, marker, messagesOf, script, settle, Socket, upstreamRequests } from "../helpers";
import { analyticsOf, asLocal, newThread, runTurn } from "./util";

afterEach(async () => {
  await settle();
  await api("/api/plugins/web", { method: "PATCH", body: { settings: { search: true, fetch: true, maxUses: 5, allowedDomains: [], blockedDomains: [] } } });
});

const SOURCES = [
  { title: "Weather in Zürich", url: "https://weather.example/zurich", pageAge: "2 hours ago" },
  { title: "Lake forecast", url: "https://lake.example/forecast" },
];

/** A search, its results, and an answer in three text blocks, the middle one cited. */
function searchAnswer(query: string) {
  return {
    kind: "blocks" as const,
    blocks: [
      { type: "text" as const, text: "Let me look that up." },
      { type: "server_tool_use" as const, name: "web_search" as const, input: { query } },
      { type: "web_search_tool_result" as const, results: SOURCES },
      { type: "text" as const, text: "In short: " },
      { type: "text" as const, text: "it is sunny and 21°C.", citations: [{ url: SOURCES[0].url, citedText: "Sunny, 21°C" }] },
      { type: "text" as const, text: " Enjoy the lake." },
    ],
  };
}

describe("web search", () => {
  it("offers the tools, streams the search and its sources, cites, and keeps it all for a reload", async () => {
    const thread = await newThread();
    const ws = await Socket.open(thread.id);
    const m = marker("search");
    await script(m, [searchAnswer("weather Zürich")]);
    await runTurn(ws, thread.id, `What is the weather in Zürich? ${m}`);

    const [request] = await upstreamRequests(m);
    expect(request.body.tools).toEqual(
      expect.arrayContaining([
        { type: "web_search_20250305", name: "web_search", max_uses: 5 },
        { type: "web_fetch_20250910", name: "web_fetch", max_uses: 5, citations: { enabled: true } },
      ]),
    );

    const streamed = ws.events("pipeline:stream").map((f) => f.data);
    const call = streamed.find((d) => d.type === "server_tool_call");
    expect(call).toMatchObject({ toolName: "web_search", input: { query: "weather Zürich" } });
    const result = streamed.find((d) => d.type === "server_tool_result");
    expect(result).toMatchObject({ toolUseId: call.toolUseId, toolName: "web_search", sources: [{ url: SOURCES[0].url, title: SOURCES[0].title, pageAge: "2 hours ago" }, { url: SOURCES[1].url, title: SOURCES[1].title }] });
    const cited = streamed.find((d) => d.type === "citations");
    const answer = "Let me look that up.\n\nIn short: it is sunny and 21°C. Enjoy the lake.";
    expect(cited.citations).toEqual([{ url: SOURCES[0].url, title: SOURCES[0].title, citedText: "Sunny, 21°C" }]);

    // A reload reads the same: the answer's metadata has the search card and the citations.
    const stored = (await messagesOf(thread.id, "?kinds=text")).messages.find((x: any) => x.role === "assistant");
    const text = stored.content as string;
    expect(text).toBe(answer);
    expect(text.slice(0, cited.at).endsWith("it is sunny and 21°C.")).toBe(true);
    expect(stored.metadata.web).toEqual({
      calls: [{ toolUseId: call.toolUseId, toolName: "web_search", input: { query: "weather Zürich" }, sources: result.sources }],
      citations: [{ ...cited.citations[0], at: cited.at }],
    });
    expect(stored.metadata.usage.serverToolUses).toEqual({ web_search: 1 });
    ws.close();
  });

  it("sends the blocks back unchanged in the next turn, and prices the search", async () => {
    const thread = await newThread();
    const points = await analyticsOf(thread.id);
    const ws = await Socket.open(thread.id);
    const [m1, m2] = [marker("first"), marker("second")];
    await script(m1, [searchAnswer("tides")]);
    await script(m2, [{ kind: "text", text: "Noted." }]);
    await runTurn(ws, thread.id, `Tides? ${m1}`);
    await runTurn(ws, thread.id, `Thanks ${m2}`, 2);
    expect(runEndsOf(ws)).toEqual(["pipeline:complete", "pipeline:complete"]);

    // The fake upstream refuses a history whose server-tool blocks or citations were altered or
    // orphaned; here is the proof it got them: the assistant turn as it was streamed.
    const [second] = await upstreamRequests(m2);
    const turn = second.body.messages.find((x: any) => x.role === "assistant");
    const types = turn.content.map((b: any) => b.type);
    expect(types).toEqual(["text", "server_tool_use", "web_search_tool_result", "text", "text", "text"]);
    expect(turn.content[2].content.every((r: any) => typeof r.encrypted_content === "string" && r.encrypted_content.length > 10)).toBe(true);
    expect(turn.content[4].citations[0]).toMatchObject({ type: "web_search_result_location", url: SOURCES[0].url, cited_text: "Sunny, 21°C" });
    expect(typeof turn.content[4].citations[0].encrypted_index).toBe("string");

    await settle();
    const runId = ws.events("pipeline:start")[0].data.runId;
    // The search is counted on the run's data point (web_search_requests, its seventh double).
    expect(points.find((p) => p.blobs?.[4] === runId)?.doubles?.[6]).toBe(1);
    const { runs } = await (await asLocal(`/api/metrics?threadId=${thread.id}`)).json<any>();
    const run = runs.find((r: any) => r.id === runId);
    expect(run.costUsd).toBeGreaterThanOrEqual(0.01);
    ws.close();
  });

  it("continues a turn the API paused (pause_turn) in the same run", async () => {
    const thread = await newThread();
    const ws = await Socket.open(thread.id);
    const m = marker("pause");
    const [search, ...rest] = searchAnswer("long research").blocks.slice(1);
    await script(m, [
      { kind: "blocks", stopReason: "pause_turn", blocks: [search, rest[0]] },
      { kind: "blocks", blocks: [{ type: "text", text: "Done researching." }] },
    ]);
    await runTurn(ws, thread.id, `Research this ${m}`);
    const requests = await upstreamRequests(m);
    expect(requests).toHaveLength(2);
    expect(requests[1].body.messages.at(-1).role).toBe("assistant");
    expect(runEndsOf(ws)).toEqual(["pipeline:complete"]);
    const stored = (await messagesOf(thread.id, "?kinds=text")).messages.find((x: any) => x.role === "assistant");
    expect(stored.content).toBe("Done researching.");
    expect(stored.metadata.web.calls).toHaveLength(1);
    ws.close();
  });
});

describe("web fetch", () => {
  it("streams the page it read as a source", async () => {
    const thread = await newThread();
    const ws = await Socket.open(thread.id);
    const m = marker("fetch");
    await script(m, [
      {
        kind: "blocks",
        blocks: [
          { type: "server_tool_use", name: "web_fetch", input: { url: "https://docs.example/page" } },
          { type: "web_fetch_tool_result", url: "https://docs.example/page", title: "The page", text: "Page text." },
          { type: "text", text: "The page says hello." },
        ],
      },
      { kind: "text", text: "unused" },
    ]);
    await runTurn(ws, thread.id, `Read https://docs.example/page ${m}`);
    const result = ws.events("pipeline:stream").map((f) => f.data).find((d) => d.type === "server_tool_result");
    expect(result).toMatchObject({ toolName: "web_fetch", sources: [{ url: "https://docs.example/page", title: "The page" }] });
    const failing = marker("fetch-error");
    await script(failing, [
      {
        kind: "blocks",
        blocks: [
          { type: "server_tool_use", name: "web_fetch", input: { url: "https://gone.example" } },
          { type: "web_fetch_tool_result", errorCode: "url_not_accessible" },
          { type: "text", text: "I could not read it." },
        ],
      },
    ]);
    await runTurn(ws, thread.id, `Read https://gone.example ${failing}`, 2);
    const error = ws.events("pipeline:stream").map((f) => f.data).filter((d) => d.type === "server_tool_result").pop();
    expect(error).toMatchObject({ toolName: "web_fetch", sources: [], error: "url_not_accessible" });
    ws.close();
  });
});

describe("the web plugin's settings", () => {
  it("turns each tool off, passes the domain lists, and refuses allowed and blocked together", async () => {
    const patch = (settings: object) => api("/api/plugins/web", { method: "PATCH", body: { settings } });
    expect((await patch({ search: false, blockedDomains: ["spam.example"] })).status).toBe(200);
    const thread = await newThread();
    const ws = await Socket.open(thread.id);
    const m = marker("settings");
    await script(m, [{ kind: "text", text: "ok" }]);
    await runTurn(ws, thread.id, `hello ${m}`);
    const [request] = await upstreamRequests(m);
    const web = request.body.tools.filter((t: any) => t.name.startsWith("web_"));
    expect(web).toEqual([{ type: "web_fetch_20250910", name: "web_fetch", max_uses: 5, citations: { enabled: true }, blocked_domains: ["spam.example"] }]);
    const both = await patch({ allowedDomains: ["a.example"], blockedDomains: ["b.example"] });
    expect(both.status).toBe(400);
    ws.close();
  });
});

describe("the offline model", () => {
  it("says it cannot reach the web when asked for something from it", async () => {
    const body = JSON.stringify({
      model: "claude-sonnet-4-6",
      messages: [{ role: "user", content: [{ type: "text", text: "Search the latest news on tides" }] }],
      tools: [{ type: "web_search_20250305", name: "web_search" }],
    });
    const res = await offlineFetch("https://offline.invalid/v1/messages", { method: "POST", body });
    const deltas = (await res.text()).split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)));
    const text = deltas.filter((d) => d.delta?.type === "text_delta").map((d) => d.delta.text).join("");
    expect(text).toContain("cannot reach the web");
  });
});

function runEndsOf(ws: Socket): string[] {
  return ws.events().filter((f) => f.event === "pipeline:complete" || f.event === "pipeline:error").map((f) => f.event);
}
