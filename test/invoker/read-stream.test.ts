import { describe, expect, it } from "vitest";
import { CutStreamError } from "../../worker/invoker/errors";
import { readStream, type ReadEvent, type StreamProgress } from "../../worker/invoker/read-stream";
import { emptyUsage } from "../../worker/invoker/types";

// Streams as the API sends them (the SDK parses the SSE into these objects; pings never reach here).
type Raw = Record<string, unknown>;
const start = (usage: Raw = { input_tokens: 100, output_tokens: 1, cache_read_input_tokens: 10, cache_creation_input_tokens: 5 }): Raw => ({
  type: "message_start",
  message: { id: "msg_1", type: "message", role: "assistant", content: [], usage },
});
const block = (index: number, content_block: Raw): Raw => ({ type: "content_block_start", index, content_block });
const delta = (index: number, d: Raw): Raw => ({ type: "content_block_delta", index, delta: d });
const stop = (index: number): Raw => ({ type: "content_block_stop", index });
const end = (stop_reason: string, usage: Raw = { output_tokens: 42 }): Raw[] => [
  { type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage },
  { type: "message_stop" },
];

async function read(events: Raw[]) {
  const told: ReadEvent[] = [];
  const progress: StreamProgress = { started: false, usage: emptyUsage() };
  async function* stream() {
    yield* events;
  }
  const run = readStream(stream() as unknown as Parameters<typeof readStream>[0], (e) => told.push(e), progress);
  return { run, told, progress };
}

describe("readStream", () => {
  it("folds text and thinking into the message, keeping the signature byte for byte", async () => {
    const { run, told, progress } = await read([
      start(),
      block(0, { type: "thinking", thinking: "", signature: "" }),
      delta(0, { type: "thinking_delta", thinking: "Let me " }),
      delta(0, { type: "thinking_delta", thinking: "think." }),
      delta(0, { type: "signature_delta", signature: "c2lnbmF0dXJl+/=" }),
      stop(0),
      block(1, { type: "redacted_thinking", data: "opaque" }),
      stop(1),
      block(2, { type: "text", text: "" }),
      delta(2, { type: "text_delta", text: "Hello" }),
      delta(2, { type: "text_delta", text: ", world" }),
      stop(2),
      ...end("end_turn"),
    ]);
    const message = await run;
    // Each text or thinking block's end says so (a caller's buffer of it can go).
    expect(told).toEqual([
      { type: "thinking", delta: "Let me " },
      { type: "thinking", delta: "think." },
      { type: "content_end" },
      { type: "text", delta: "Hello" },
      { type: "text", delta: ", world" },
      { type: "content_end" },
    ]);
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Let me think.", signature: "c2lnbmF0dXJl+/=" },
      { type: "redacted_thinking", data: "opaque" },
      { type: "text", text: "Hello, world" },
    ]);
    expect(message.stopReason).toBe("end_turn");
    // message_delta's counts replace message_start's; those it leaves out stay.
    expect(message.usage).toEqual({ inputTokens: 100, outputTokens: 42, cacheReadTokens: 10, cacheWriteTokens: 5 });
    expect(progress).toEqual({ started: true, usage: message.usage });
  });

  it("tells a tool's input as its JSON pieces come (tool_input), then the call once it is whole", async () => {
    const { run, told } = await read([
      start(),
      block(0, { type: "tool_use", id: "toolu_1", name: "time__now", input: {} }),
      delta(0, { type: "input_json_delta", partial_json: "" }),
      delta(0, { type: "input_json_delta", partial_json: '{"zone":' }),
      delta(0, { type: "input_json_delta", partial_json: '"UTC"}' }),
      stop(0),
      block(1, { type: "tool_use", id: "toolu_2", name: "time__now", input: {} }),
      stop(1),
      ...end("tool_use"),
    ]);
    const message = await run;
    expect(told).toEqual([
      // The API's empty first piece tells nothing.
      { type: "tool_input", toolUseId: "toolu_1", toolName: "time__now", delta: '{"zone":' },
      { type: "tool_input", toolUseId: "toolu_1", toolName: "time__now", delta: '"UTC"}' },
      { type: "tool_call", toolUseId: "toolu_1", toolName: "time__now", input: { zone: "UTC" } },
      { type: "tool_call", toolUseId: "toolu_2", toolName: "time__now", input: {} },
    ]);
    expect(message.content).toEqual([
      { type: "tool_use", id: "toolu_1", name: "time__now", input: { zone: "UTC" } },
      { type: "tool_use", id: "toolu_2", name: "time__now", input: {} },
    ]);
    expect(message.stopReason).toBe("tool_use");
  });

  it("keeps server tool blocks as sent, tells their calls and results, and counts their requests", async () => {
    const search = { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} };
    const results = {
      type: "web_search_tool_result",
      tool_use_id: "srvtoolu_1",
      content: [{ type: "web_search_result", url: "https://a.test", title: "A", page_age: "1 day", encrypted_content: "x" }],
    };
    const fetched = { type: "web_fetch_tool_result", tool_use_id: "srvtoolu_2", content: { type: "web_fetch_result", url: "https://b.test", content: { title: "B" } } };
    const failed = { type: "web_search_tool_result", tool_use_id: "srvtoolu_3", content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" } };
    const { run, told, progress } = await read([
      start(),
      block(0, search),
      delta(0, { type: "input_json_delta", partial_json: '{"query":"cats"}' }),
      stop(0),
      block(1, results),
      stop(1),
      block(2, fetched),
      stop(2),
      block(3, failed),
      stop(3),
      block(4, { type: "some_future_block", payload: 1 }),
      stop(4),
      ...end("end_turn", { output_tokens: 9, server_tool_use: { web_search_requests: 2, web_fetch_requests: 1 } }),
    ]);
    const message = await run;
    // A server tool's input is told whole (no tool_input): the app shows its query, not its JSON.
    expect(told).toEqual([
      { type: "server_tool_call", toolUseId: "srvtoolu_1", toolName: "web_search", input: { query: "cats" } },
      { type: "server_tool_result", toolUseId: "srvtoolu_1", toolName: "web_search", sources: [{ url: "https://a.test", title: "A", pageAge: "1 day" }] },
      { type: "server_tool_result", toolUseId: "srvtoolu_2", toolName: "web_fetch", sources: [{ url: "https://b.test", title: "B" }] },
      { type: "server_tool_result", toolUseId: "srvtoolu_3", toolName: "web_search", sources: [], error: "max_uses_exceeded" },
    ]);
    expect(message.content).toEqual([{ ...search, input: { query: "cats" } }, results, fetched, failed, { type: "some_future_block", payload: 1 }]);
    expect(message.usage.serverToolUses).toEqual({ web_search: 2, web_fetch: 1 });
    expect(progress.started).toBe(true);
  });

  it("keeps a text block's citations, from its start and its deltas, and tells them when it ends", async () => {
    const first = { type: "web_search_result_location", url: "https://a.test", title: "A", cited_text: "cats purr", encrypted_index: "e1" };
    const second = { type: "char_location", document_title: "Doc", cited_text: "dogs bark", document_index: 0, start_char_index: 0, end_char_index: 9 };
    const { run, told } = await read([
      start(),
      block(0, { type: "text", text: "", citations: [first] }),
      delta(0, { type: "citations_delta", citation: second }),
      delta(0, { type: "text_delta", text: "They do." }),
      stop(0),
      block(1, { type: "text", text: "", citations: [] }),
      stop(1),
      ...end("end_turn"),
    ]);
    const message = await run;
    expect(told).toEqual([
      { type: "text", delta: "They do." },
      {
        type: "cited",
        citations: [
          { url: "https://a.test", title: "A", citedText: "cats purr" },
          { url: "", title: "Doc", citedText: "dogs bark" },
        ],
      },
      { type: "content_end" },
    ]);
    // An empty uncited block is left out; a cited one goes back with its citations as sent.
    expect(message.content).toEqual([{ type: "text", text: "They do.", citations: [first, second] }]);
  });

  it("keeps a compaction block as sent, marks it, and bills the compaction's iteration", async () => {
    const { run, told, progress } = await read([
      start({ input_tokens: 50_000, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }),
      block(0, { type: "compaction", content: null, encrypted_content: null }),
      delta(0, { type: "compaction_delta", content: "Summary of ", encrypted_content: null }),
      delta(0, { type: "compaction_delta", content: "the talk", encrypted_content: "opaque-state" }),
      stop(0),
      block(1, { type: "text", text: "" }),
      delta(1, { type: "text_delta", text: "Go on." }),
      stop(1),
      ...end("end_turn", {
        input_tokens: 400,
        output_tokens: 3,
        iterations: [
          { type: "compaction", input_tokens: 50_000, output_tokens: 200, cache_read_input_tokens: 7, cache_creation_input_tokens: 0 },
          { type: "message", input_tokens: 400, output_tokens: 3, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        ],
      }),
    ]);
    const message = await run;
    expect(told).toEqual([{ type: "compaction" }, { type: "text", delta: "Go on." }, { type: "content_end" }]);
    expect(message.content).toEqual([
      { type: "compaction", content: "Summary of the talk", encrypted_content: "opaque-state" },
      { type: "text", text: "Go on." },
    ]);
    expect(message.usage).toEqual({ inputTokens: 50_400, outputTokens: 203, cacheReadTokens: 7, cacheWriteTokens: 0 });
    expect(progress.usage).toEqual(message.usage);
  });

  it("throws on a stream cut before message_stop, with what it cost so far in the progress", async () => {
    const { run, progress } = await read([start(), block(0, { type: "text", text: "" }), delta(0, { type: "text_delta", text: "Hal" })]);
    await expect(run).rejects.toBeInstanceOf(CutStreamError);
    expect(progress).toEqual({ started: true, usage: { inputTokens: 100, outputTokens: 1, cacheReadTokens: 10, cacheWriteTokens: 5 } });
  });

  it("counts a tool's streaming input as started: the user saw it grow, a retry would show it again", async () => {
    const { run, told, progress } = await read([
      start(),
      block(0, { type: "tool_use", id: "toolu_1", name: "artifacts__create", input: {} }),
      delta(0, { type: "input_json_delta", partial_json: "" }),
      delta(0, { type: "input_json_delta", partial_json: '{"title":"Pl' }),
    ]);
    await expect(run).rejects.toBeInstanceOf(CutStreamError);
    expect(told).toEqual([{ type: "tool_input", toolUseId: "toolu_1", toolName: "artifacts__create", delta: '{"title":"Pl' }]);
    expect(progress.started).toBe(true);
  });

  it("counts a response as started only once something reached the user", async () => {
    const { run, told, progress } = await read([
      start(),
      block(0, { type: "thinking", thinking: "", signature: "" }),
      delta(0, { type: "signature_delta", signature: "sig" }),
      stop(0),
    ]);
    await expect(run).rejects.toBeInstanceOf(CutStreamError);
    expect(told).toEqual([]);
    expect(progress.started).toBe(false);
  });
});
