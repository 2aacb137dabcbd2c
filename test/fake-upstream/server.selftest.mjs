// Self-test of the fake upstream, driven through the REAL @anthropic-ai/sdk client so
// we know the SDK parses everything the fake emits.
//   node --test test/fake-upstream/server.selftest.mjs

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import Anthropic, { toFile } from "@anthropic-ai/sdk";
import { startFakeUpstream } from "./server.mjs";

let fake;
let tokenCounter = 0;

before(async () => {
  fake = await startFakeUpstream();
});
after(async () => {
  await fake.close();
});

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

function uniqueToken() {
  return `tok_${process.pid}_${++tokenCounter}`;
}

function sdk(options = {}) {
  return new Anthropic({ apiKey: "test", baseURL: fake.url, maxRetries: 0, ...options });
}

function params(userText, extra = {}) {
  return { model: "claude-test", max_tokens: 256, messages: [{ role: "user", content: userText }], ...extra };
}

async function script(match, responses) {
  const res = await fetch(`${fake.url}/_control/scripts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ match, responses }),
  });
  assert.equal(res.status, 204);
}

async function recorded(match) {
  const res = await fetch(`${fake.url}/_control/requests?match=${encodeURIComponent(match)}`);
  return (await res.json()).requests;
}

/** Iterates a raw SDK stream, returning every event plus the error (if any) that ended it. */
async function drain(stream) {
  const events = [];
  try {
    for await (const event of stream) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

function textOf(events) {
  return events
    .filter((e) => e.type === "content_block_delta" && e.delta.type === "text_delta")
    .map((e) => e.delta.text)
    .join("");
}

async function expectApiError(promise, ErrorClass, status) {
  const err = await promise.then(
    () => assert.fail("expected an error"),
    (e) => e,
  );
  assert.ok(err instanceof ErrorClass, `expected ${ErrorClass.name}, got ${err?.constructor?.name}: ${err}`);
  assert.equal(err.status, status);
  return err;
}

// ---------------------------------------------------------------------------
// streaming scenarios
// ---------------------------------------------------------------------------

test("default answer echoes the last user text, in the exact event order", async () => {
  const token = uniqueToken();
  const stream = await sdk().messages.create(params(`hello there ${token}`, { stream: true }));
  const { events, error } = await drain(stream);

  assert.equal(error, undefined);
  assert.deepEqual(
    events.map((e) => e.type),
    [
      "message_start",
      "content_block_start",
      ...Array(4).fill("content_block_delta"),
      "content_block_stop",
      "message_delta",
      "message_stop",
    ],
  );
  const start = events[0].message;
  assert.match(start.id, /^msg_/);
  assert.equal(start.model, "claude-test");
  assert.equal(start.role, "assistant");
  assert.deepEqual(start.content, []);
  assert.ok(start.usage.input_tokens > 10);
  assert.equal(textOf(events), `Echo: hello there ${token}`);
  assert.equal(events.at(-2).delta.stop_reason, "end_turn");
});

test("an image inline, even in a tool's result, is counted as the 1,600 tokens an image costs, not by its base64", async () => {
  const token = uniqueToken();
  const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "A".repeat(400_000) } };
  const messages = [
    { role: "user", content: `look ${token}` },
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "shot", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "a shot" }, image] }, image] },
  ];
  const reply = await sdk().messages.create({ model: "claude-test", max_tokens: 64, messages });
  assert.ok(reply.usage.input_tokens > 2 * 1_600, String(reply.usage.input_tokens));
  assert.ok(reply.usage.input_tokens < 2 * 1_600 + 200, String(reply.usage.input_tokens));
});

test("refuses, as the API does, an image past 5 MB of base64 or 8000 px, past 20 images one over 2000 px, a broken image (no path) and a broken PDF", async () => {
  const png = (w, h, filler = 16) => {
    const b = Buffer.alloc(33 + filler);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(b);
    b.write("IHDR", 12, "latin1");
    b.writeUInt32BE(w, 16);
    b.writeUInt32BE(h, 20);
    return { type: "image", source: { type: "base64", media_type: "image/png", data: b.toString("base64") } };
  };
  const ask = (content) => sdk({ maxRetries: 0 }).messages.create({ model: "claude-test", max_tokens: 16, messages: [{ role: "user", content: [...content, { type: "text", text: uniqueToken() }] }] });
  await assert.rejects(ask([png(10, 10), png(8001, 10)]), (err) => err.status === 400 && /messages\.0\.content\.1\.image\.source\.base64\.data: At least one of the image dimensions exceed max allowed size: 8000 pixels/.test(err.message));
  await assert.rejects(ask([png(10, 10, 4_000_000)]), (err) => err.status === 400 && /image exceeds 5 MB maximum: \d+ bytes > 5242880 bytes/.test(err.message));
  await assert.rejects(ask(Array.from({ length: 21 }, () => png(2001, 10))), (err) => err.status === 400 && /many-image requests: 2000 pixels/.test(err.message));
  await assert.rejects(ask([png(10, 10), png(0, 10)]), (err) => err.status === 400 && err.message.includes('"message":"Could not process image"'));
  const pdf = (text) => ({ type: "document", source: { type: "base64", media_type: "application/pdf", data: Buffer.from(text).toString("base64") } });
  await assert.rejects(ask([pdf("%PDF-1.4 cut short")]), (err) => err.status === 400 && /messages\.0\.content\.0\.document\.source\.base64\.data: The PDF specified was not valid\./.test(err.message));
  const fine = await ask([...Array.from({ length: 19 }, () => png(4000, 3000)), png(10, 10, 3_000_000), pdf("%PDF-1.4\n%%EOF\n")]);
  assert.equal(fine.type, "message");
});

test("refuses a request past 32 MB with 413 request_too_large, as the API does", async () => {
  const big = { type: "document", source: { type: "text", media_type: "text/plain", data: "x".repeat(33 * 1024 * 1024) } };
  await assert.rejects(
    sdk({ maxRetries: 0 }).messages.create({ model: "claude-test", max_tokens: 16, messages: [{ role: "user", content: [big, { type: "text", text: "hi" }] }] }),
    (err) => err.status === 413 && err.message.includes("request_too_large"),
  );
});

test("messages.stream + finalMessage assembles thinking (with signature) and text", async () => {
  const token = uniqueToken();
  await script(token, [
    { kind: "text", text: "The answer is 42.", thinking: { text: "Let me think hard." }, usage: { cache_read_input_tokens: 123 } },
    { kind: "text", text: "Second.", thinking: { text: "again", signature: "custom-sig" }, chunks: 3 },
  ]);

  const first = await sdk().messages.stream(params(`q ${token}`)).finalMessage();
  assert.deepEqual(first.content, [
    { type: "thinking", thinking: "Let me think hard.", signature: "sig_" + Buffer.from("Let me think hard.").toString("base64") },
    { type: "text", text: "The answer is 42." },
  ]);
  assert.equal(first.stop_reason, "end_turn");
  assert.equal(first.usage.cache_read_input_tokens, 123);
  assert.ok(first.usage.output_tokens > 1);

  const stream = await sdk().messages.create(params(`q ${token}`, { stream: true }));
  const { events } = await drain(stream);
  const deltas = events.filter((e) => e.type === "content_block_delta");
  assert.deepEqual(
    deltas.map((d) => d.delta.type),
    ["thinking_delta", "signature_delta", "text_delta", "text_delta", "text_delta"],
  );
  assert.equal(deltas[1].delta.signature, "custom-sig");
  assert.equal(textOf(events), "Second.");
});

test("tool_use input is streamed as input_json_delta pieces and reassembled by the SDK", async () => {
  const token = uniqueToken();
  const weatherInput = { city: "Zürich 🇨🇭", days: 3, options: { units: "metric", hourly: [1, 2, 3] } };
  await script(token, [
    {
      kind: "tool_use",
      text: "Let me check.",
      tools: [
        { name: "get_weather", input: weatherInput, id: "toolu_fixed" },
        { name: "no_args", input: {} },
      ],
    },
  ]);

  const stream = sdk().messages.stream(params(`weather ${token}`));
  const jsonPieces = [];
  stream.on("streamEvent", (e) => {
    if (e.type === "content_block_delta" && e.delta.type === "input_json_delta") jsonPieces.push(e.delta.partial_json);
  });
  const message = await stream.finalMessage();

  assert.equal(message.stop_reason, "tool_use");
  assert.deepEqual(message.content[0], { type: "text", text: "Let me check." });
  assert.equal(message.content[1].type, "tool_use");
  assert.equal(message.content[1].id, "toolu_fixed");
  assert.equal(message.content[1].name, "get_weather");
  assert.deepEqual(message.content[1].input, weatherInput);
  assert.match(message.content[2].id, /^toolu_/);
  assert.deepEqual(message.content[2].input, {});
  assert.equal(jsonPieces[0], "");
  assert.ok(jsonPieces.length >= 3 + 3, `expected 3+ pieces per tool, got ${jsonPieces.length}`);
});

test("a tool's input can be split into given pieces or a count of them, each after the step's delay", async () => {
  const token = uniqueToken();
  const pieces = ['{"title":"Poem",', '"content":"one\\n', "two\\u00e9", '"}'];
  await script(token, [
    { kind: "tool_use", delayMs: 40, tools: [{ name: "artifacts__create", chunks: pieces, id: "toolu_pieces" }, { name: "even", input: { text: "x".repeat(40) }, chunks: 4 }] },
  ]);
  const stream = sdk().messages.stream(params(`pieces ${token}`));
  const deltas = [];
  stream.on("streamEvent", (e) => {
    if (e.type === "content_block_delta" && e.delta.type === "input_json_delta") deltas.push({ index: e.index, json: e.delta.partial_json, at: performance.now() });
  });
  const message = await stream.finalMessage();

  assert.deepEqual(message.content[0].input, { title: "Poem", content: "one\ntwoé" });
  assert.deepEqual(deltas.filter((d) => d.index === 0).map((d) => d.json), ["", ...pieces]);
  const even = deltas.filter((d) => d.index === 1).map((d) => d.json);
  assert.equal(even.length, 1 + 4);
  assert.equal(even.join(""), JSON.stringify({ text: "x".repeat(40) }));
  assert.deepEqual(message.content[1].input, { text: "x".repeat(40) });
  // The pieces come the step's delay apart (timers may fire a little early).
  const gaps = deltas.slice(1).map((d, i) => d.at - deltas[i].at);
  assert.ok(gaps.every((g) => g >= 30), `gaps between pieces: ${gaps.map(Math.round).join(", ")}`);

  const res = await fetch(`${fake.url}/_control/scripts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ match: uniqueToken(), responses: [{ kind: "tool_use", tools: [{ name: "x", chunks: ['{"a":', "1"] }] }] }),
  });
  assert.equal(res.status, 400);
  assert.match((await res.json()).error, /responses\[0\]: tools\[0\]\.chunks must join to a JSON object/);
});

test("HTTP errors surface as the matching SDK error classes", async () => {
  const token = uniqueToken();
  await script(token, [
    { kind: "error", status: 429, retryAfter: 7 },
    { kind: "error", status: 529 },
    { kind: "error", status: 500, message: "boom" },
    { kind: "error", status: 400, message: "bad field" },
  ]);
  const client = sdk();
  const create = () => client.messages.create(params(`err ${token}`, { stream: true }));

  const rateLimited = await expectApiError(create(), Anthropic.RateLimitError, 429);
  assert.equal(rateLimited.headers.get("retry-after"), "7");
  assert.equal(rateLimited.type, "rate_limit_error");
  assert.match(rateLimited.requestID, /^req_/);

  const overloaded = await expectApiError(create(), Anthropic.OverloadedError, 529);
  assert.equal(overloaded.type, "overloaded_error");

  const internal = await expectApiError(create(), Anthropic.InternalServerError, 500);
  assert.equal(internal.apiMessage, "boom");
  assert.equal(internal.type, "api_error");

  const bad = await expectApiError(create(), Anthropic.BadRequestError, 400);
  assert.equal(bad.type, "invalid_request_error");

  // The script is used up: the default answer applies again.
  const { events } = await drain(await create());
  assert.equal(textOf(events), `Echo: err ${token}`);
});

test("authentication: x-api-key or Bearer is accepted, neither gives 401", async () => {
  const token = uniqueToken();
  const bearer = new Anthropic({ apiKey: null, authToken: "tok", baseURL: fake.url, maxRetries: 0 });
  const message = await bearer.messages.stream(params(`bearer ${token}`)).finalMessage();
  assert.equal(message.content[0].text, `Echo: bearer ${token}`);

  const viaKeyHeader = await fetch(`${fake.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": "k", "anthropic-version": "2023-06-01" },
    body: JSON.stringify(params(`xkey ${token}`, { stream: true })),
  });
  assert.equal(viaKeyHeader.status, 200);
  assert.equal(viaKeyHeader.headers.get("content-type"), "text/event-stream; charset=utf-8");
  assert.match(await viaKeyHeader.text(), /^event: message_start\ndata: \{/);

  const res = await fetch(`${fake.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify(params(`nokey ${token}`, { stream: true })),
  });
  assert.equal(res.status, 401);
  const body = await res.json();
  assert.equal(body.type, "error");
  assert.equal(body.error.type, "authentication_error");
  assert.match(body.request_id, /^req_/);
});

test("a mid-stream error event raises an APIError with the error type", async () => {
  const token = uniqueToken();
  await script(token, [{ kind: "stream_error", afterText: "partial answer", type: "overloaded_error", message: "Overloaded" }]);

  const { events, error } = await drain(await sdk().messages.create(params(`se ${token}`, { stream: true })));
  assert.equal(textOf(events), "partial answer");
  assert.ok(error instanceof Anthropic.APIError, String(error));
  assert.equal(error.type, "overloaded_error");
  assert.equal(error.error.error.message, "Overloaded");
  assert.equal(error.status, undefined);
});

test("a cut stream makes the SDK throw, both raw and via finalMessage", async () => {
  const token = uniqueToken();
  await script(token, [{ kind: "cut", afterText: "half a sen" }, { kind: "cut" }]);

  const { events, error } = await drain(await sdk().messages.create(params(`cut ${token}`, { stream: true })));
  assert.equal(textOf(events), "half a sen");
  assert.ok(!events.some((e) => e.type === "message_stop"));
  assert.ok(error instanceof Error, "expected the cut to raise");

  await assert.rejects(sdk().messages.stream(params(`cut ${token}`)).finalMessage());
});

test("a hanging stream stays open until the client aborts, then the server lets go", async () => {
  const own = await startFakeUpstream(); // own server, so the only /v1/messages response is ours
  const responseClosed = new Promise((resolve) => {
    own.server.on("request", (req, res) => {
      if (req.url.startsWith("/v1/messages")) res.once("close", resolve);
    });
  });
  try {
    const token = uniqueToken();
    await fetch(`${own.url}/_control/scripts`, {
      method: "POST",
      body: JSON.stringify({ match: token, responses: [{ kind: "hang", afterText: "thinking about it" }] }),
    });
    const client = new Anthropic({ apiKey: "test", baseURL: own.url, maxRetries: 0 });
    const abort = new AbortController();
    const stream = await client.messages.create(params(`hang ${token}`, { stream: true }), { signal: abort.signal });

    const seen = [];
    const silence = setTimeout(() => abort.abort(), 300);
    for await (const event of stream) seen.push(event); // ends quietly once aborted
    clearTimeout(silence);

    assert.equal(textOf(seen), "thinking about it");
    assert.ok(!seen.some((e) => e.type === "content_block_stop"));
    assert.ok(abort.signal.aborted);
    await withTimeout(responseClosed, 2000, "the server to see the client abort");
  } finally {
    await own.close();
  }
});

test("raw steps are sent verbatim; delays and firstByteDelayMs are honoured", async () => {
  const token = uniqueToken();
  const msg = { id: "msg_raw", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
  await script(token, [
    {
      kind: "raw",
      delayMs: 20,
      firstByteDelayMs: 100,
      events: [
        { event: "message_start", data: { type: "message_start", message: msg } },
        { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "redacted_thinking", data: "opaque" } } },
        { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
        { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 2 } } },
        { event: "message_stop", data: { type: "message_stop" } },
      ],
    },
  ]);

  const startedAt = Date.now();
  const message = await sdk().messages.stream(params(`raw ${token}`)).finalMessage();
  const elapsed = Date.now() - startedAt;
  assert.equal(message.id, "msg_raw");
  assert.deepEqual(message.content, [{ type: "redacted_thinking", data: "opaque" }]);
  assert.ok(elapsed >= 100 + 4 * 20 - 5, `expected ≥180ms, took ${elapsed}ms`);
});

// ---------------------------------------------------------------------------
// blocks steps: server tools, citations, the memory tool
// ---------------------------------------------------------------------------

const WEB_SEARCH = { type: "web_search_20250305", name: "web_search", max_uses: 3 };
const WEB_FETCH = { type: "web_fetch_20250910", name: "web_fetch", max_uses: 2, citations: { enabled: true } };
const MEMORY = { type: "memory_20250818", name: "memory" };
const BASE64 = /^[A-Za-z0-9+/]{20,}={0,2}$/;

/** Streams `body` through messages.stream, keeping every raw event, and returns both. */
async function streamWithEvents(body, client = sdk()) {
  const stream = client.messages.stream(body);
  const events = [];
  // Cloned: the SDK's snapshot is message_start's own object, which later events mutate.
  stream.on("streamEvent", (e) => events.push(structuredClone(e)));
  const message = await stream.finalMessage();
  return { message, events };
}

/** Strips the random opaque fields so the rest can be compared whole. */
function withoutOpaque(value) {
  return JSON.parse(JSON.stringify(value, (key, v) => (key === "encrypted_content" || key === "encrypted_index" ? undefined : v)));
}

test("blocks: a web search streams as the API streams it and finalMessage assembles it", async () => {
  const token = uniqueToken();
  await script(token, [
    {
      kind: "blocks",
      blocks: [
        { type: "text", text: "Let me search." },
        { type: "server_tool_use", name: "web_search", input: { query: "weather Zürich" }, id: "srvtoolu_fixed" },
        {
          type: "web_search_tool_result",
          delayMs: 60,
          results: [
            { title: "Weather Zürich", url: "https://weather.example/zh", pageAge: "2 hours ago" },
            { title: "Other", url: "https://other.example/" },
          ],
        },
        { type: "text", text: "It is sunny in Zürich.", citations: [{ url: "https://weather.example/zh", citedText: "Sunny, 21°C" }] },
        { type: "text", text: " Enjoy!" },
      ],
    },
  ]);

  const startedAt = Date.now();
  const { message, events } = await streamWithEvents(params(`ws ${token}`, { tools: [WEB_SEARCH] }));
  assert.ok(Date.now() - startedAt >= 55, "the result waited for its delayMs");

  assert.equal(message.stop_reason, "end_turn");
  assert.deepEqual(message.content.map((b) => b.type), ["text", "server_tool_use", "web_search_tool_result", "text", "text"]);
  assert.deepEqual(message.content[1], { type: "server_tool_use", id: "srvtoolu_fixed", name: "web_search", input: { query: "weather Zürich" }, caller: { type: "direct" } });
  const result = message.content[2];
  assert.deepEqual(withoutOpaque(result), {
    type: "web_search_tool_result",
    tool_use_id: "srvtoolu_fixed",
    content: [
      { type: "web_search_result", title: "Weather Zürich", url: "https://weather.example/zh", page_age: "2 hours ago" },
      { type: "web_search_result", title: "Other", url: "https://other.example/", page_age: null },
    ],
    caller: { type: "direct" },
  });
  for (const r of result.content) assert.match(r.encrypted_content, BASE64);
  const cited = message.content[3];
  assert.equal(cited.text, "It is sunny in Zürich.");
  assert.deepEqual(withoutOpaque(cited.citations), [
    { type: "web_search_result_location", cited_text: "Sunny, 21°C", url: "https://weather.example/zh", title: "Weather Zürich" },
  ]);
  assert.match(cited.citations[0].encrypted_index, BASE64);
  assert.deepEqual(message.content[4], { type: "text", text: " Enjoy!" }, "an uncited block has no citations key");
  assert.deepEqual(message.usage.server_tool_use, { web_search_requests: 1, web_fetch_requests: 0 });

  // The wire details a hand-written stream reader depends on.
  const start = events.find((e) => e.type === "message_start").message;
  const delta = events.find((e) => e.type === "message_delta");
  assert.equal("server_tool_use" in start.usage, false, "message_start carries no server tool counts");
  assert.ok(delta.usage.input_tokens > start.usage.input_tokens, "the results are billed as input");
  const starts = events.filter((e) => e.type === "content_block_start");
  assert.deepEqual(starts[1].content_block, { type: "server_tool_use", id: "srvtoolu_fixed", name: "web_search", input: {}, caller: { type: "direct" } });
  assert.deepEqual(Object.keys(starts[3].content_block), ["citations", "type", "text"]);
  assert.deepEqual(starts[3].content_block.citations, []);
  assert.equal("citations" in starts[4].content_block, false);
  const ofBlock = (index) => events.filter((e) => e.index === index).map((e) => e.delta?.type ?? e.type);
  assert.deepEqual(ofBlock(2), ["content_block_start", "content_block_stop"], "a result arrives whole");
  assert.deepEqual(ofBlock(3), ["content_block_start", "citations_delta", ...Array(5).fill("text_delta"), "content_block_stop"]);
  const jsonPieces = events.filter((e) => e.index === 1 && e.type === "content_block_delta").map((e) => e.delta.partial_json);
  assert.equal(jsonPieces[0], "");
  assert.equal(jsonPieces.join(""), JSON.stringify({ query: "weather Zürich" }));
});

test("blocks: web fetch results (document citations follow the tool), fetch and search errors", async () => {
  const token = uniqueToken();
  const page = "Example Domain\n\nThis domain is for use in documentation examples.";
  await script(token, [
    {
      kind: "blocks",
      blocks: [
        { type: "server_tool_use", name: "web_fetch", input: { url: "https://example.com" } },
        { type: "web_fetch_tool_result", url: "https://example.com", title: "Example Domain", text: page },
        { type: "server_tool_use", name: "web_fetch", input: { url: "https://down.example" } },
        { type: "web_fetch_tool_result", errorCode: "url_not_accessible" },
        { type: "server_tool_use", name: "web_search", input: { query: "more" } },
        { type: "web_search_tool_result", errorCode: "max_uses_exceeded" },
        { type: "text", text: "It is a placeholder.", citations: [{ type: "char_location", citedText: "documentation examples", startCharIndex: 40, documentTitle: "Example Domain" }] },
      ],
    },
    { kind: "blocks", blocks: [{ type: "server_tool_use", name: "web_fetch", input: { url: "https://a.example" } }, { type: "web_fetch_tool_result", url: "https://a.example" }] },
  ]);

  const { message } = await streamWithEvents(params(`wf ${token}`, { tools: [WEB_SEARCH, WEB_FETCH] }));
  const [call, fetched, failedCall, failed, searchCall, searchFailed, text] = message.content;
  assert.equal(fetched.tool_use_id, call.id);
  assert.match(call.id, /^srvtoolu_01/);
  assert.deepEqual(call.input, { url: "https://example.com" });
  const { retrieved_at, ...rest } = fetched.content;
  assert.deepEqual(rest, {
    type: "web_fetch_result",
    url: "https://example.com",
    content: { type: "document", source: { type: "text", media_type: "text/plain", data: page }, title: "Example Domain", citations: { enabled: true } },
  });
  assert.match(retrieved_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
  assert.ok(Math.abs(Date.parse(retrieved_at) - Date.now()) < 60_000);
  assert.equal(failed.tool_use_id, failedCall.id);
  assert.deepEqual(failed.content, { type: "web_fetch_tool_result_error", error_code: "url_not_accessible" });
  assert.equal(searchFailed.tool_use_id, searchCall.id);
  assert.deepEqual(searchFailed.content, { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" });
  assert.deepEqual(text.citations, [
    { type: "char_location", cited_text: "documentation examples", document_index: 0, document_title: "Example Domain", start_char_index: 40, end_char_index: 62, file_id: null },
  ]);
  assert.deepEqual(message.usage.server_tool_use, { web_search_requests: 0, web_fetch_requests: 1 }, "failed calls are not counted");

  // Without citations in the tool definition the document has no citations key; no title is null.
  const plain = await sdk().messages.stream(params(`wf ${token}`, { tools: [{ type: "web_fetch_20250910", name: "web_fetch" }] })).finalMessage();
  const doc = plain.content[1].content.content;
  assert.equal("citations" in doc, false);
  assert.equal(doc.title, null);
  assert.equal(doc.source.data, "");
});

test("pause_turn: the paused turn comes back as the last message and is continued", async () => {
  const token = uniqueToken();
  await script(token, pausedSearch());
  const ask = asker();
  const user = { role: "user", content: `pause ${token}` };

  const paused = await ask([user]);
  assert.equal(paused.stop_reason, "pause_turn");
  assert.deepEqual(paused.usage.server_tool_use, { web_search_requests: 1, web_fetch_requests: 0 });
  const pausedTurn = { role: "assistant", content: paused.content };
  const done = await ask([user, pausedTurn]);
  assert.equal(done.stop_reason, "end_turn");
  assert.equal(done.content[0].citations[0].title, "R1", "titles of results earlier in the conversation are known");

  // What the client sent back is recorded as sent, opaque fields included.
  const sent = (await recorded(token))[1].body.messages;
  assert.deepEqual(sent.at(-1), JSON.parse(JSON.stringify(pausedTurn)));

  // The whole exchange as history: consecutive assistant messages are one turn.
  const history = [user, pausedTurn, { role: "assistant", content: done.content }, { role: "user", content: "thanks" }];
  assert.equal((await ask(history)).content[0].text, "Echo: thanks");
});

/** A search turn stopped with pause_turn, then its cited conclusion. */
function pausedSearch() {
  return [
    {
      kind: "blocks",
      stopReason: "pause_turn",
      blocks: [
        { type: "thinking", text: "I should search." },
        { type: "server_tool_use", name: "web_search", input: { query: "q1" } },
        { type: "web_search_tool_result", results: [{ title: "R1", url: "https://r1.example/" }] },
      ],
    },
    { kind: "blocks", blocks: [{ type: "text", text: "Found it.", citations: [{ url: "https://r1.example/", citedText: "the fact" }] }] },
  ];
}

/** Sends `messages` with the web search tool declared, streamed, and returns the final message. */
function asker(client = sdk()) {
  return (messages) => client.messages.stream({ model: "claude-test", max_tokens: 256, tools: [WEB_SEARCH], messages }).finalMessage();
}

test("server tool blocks sent back are checked as the API checks them", async () => {
  const token = uniqueToken();
  await script(token, pausedSearch());
  const ask = asker();
  const user = { role: "user", content: `check ${token}` };
  const paused = await ask([user]);
  const pausedTurn = { role: "assistant", content: paused.content };
  const done = await ask([user, pausedTurn]);
  const [thinking, call, result] = paused.content;

  const refusedWith = async (messages, pattern) => {
    const err = await expectApiError(ask(messages), Anthropic.BadRequestError, 400);
    assert.equal(err.type, "invalid_request_error");
    assert.match(err.apiMessage, pattern);
  };
  // A call without its result, even as the last message (the API's own wording).
  await refusedWith(
    [user, { role: "assistant", content: [thinking, call] }],
    new RegExp(`^messages\\.1: \`web_search\` tool use with id \`${call.id}\` was found without a corresponding \`web_search_tool_result\` block$`),
  );
  // A user tool_result does not answer a server tool, before or after its result.
  await refusedWith(
    [user, { role: "assistant", content: [thinking, call] }, { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "x" }] }, { role: "assistant", content: [result] }],
    /^messages\.1: `web_search` tool use/,
  );
  await refusedWith(
    [user, pausedTurn, { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "x" }] }],
    /^messages\.2\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks/,
  );
  await refusedWith([user, { role: "assistant", content: [thinking, result, call] }], /^messages\.1\.content\.1: unexpected `tool_use_id` found in `web_search_tool_result` blocks/);
  // Opaque fields come back as they were issued.
  const altered = { ...result, content: [{ ...result.content[0], encrypted_content: "AAAA" + result.content[0].encrypted_content }] };
  await refusedWith([user, { role: "assistant", content: [thinking, call, altered] }], /^messages\.1\.content\.2: web_search_tool_result content was altered/);
  const { encrypted_index, ...noIndex } = done.content[0].citations[0];
  await refusedWith([user, pausedTurn, { role: "assistant", content: [{ ...done.content[0], citations: [noIndex] }] }], /^messages\.2\.content\.0\.citations\.0\.encrypted_index: Field required$/);
});

test("memory tool: a client tool_use with caller, streamed input, stop_reason tool_use", async () => {
  const token = uniqueToken();
  const input = { command: "create", path: "/memories/notes.md", file_text: "# Notes\n- likes tea ☕\n" };
  await script(token, [{ kind: "blocks", blocks: [{ type: "text", text: "I'll note that." }, { type: "tool_use", name: "memory", input }] }]);

  const { message } = await streamWithEvents(params(`mem ${token}`, { tools: [MEMORY] }));
  assert.equal(message.stop_reason, "tool_use");
  const { id, ...call } = message.content[1];
  assert.match(id, /^toolu_01/);
  assert.deepEqual(call, { type: "tool_use", name: "memory", input, caller: { type: "direct" } });
  assert.equal(message.usage.server_tool_use, undefined, "no server tool, no counts");

  const next = await sdk().messages.stream({
    model: "claude-test",
    max_tokens: 256,
    tools: [MEMORY],
    messages: [
      { role: "user", content: `mem ${token}` },
      { role: "assistant", content: message.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "File created successfully at /memories/notes.md" }] },
    ],
  }).finalMessage();
  assert.equal(next.content[0].text, "Tool said: File created successfully at /memories/notes.md");
});

test("server tool definitions are checked as the API checks them", async () => {
  const client = sdk();
  const withTools = (tools) => client.messages.create(params(`defs ${uniqueToken()}`, { tools }));
  const refused = async (tools, message) => {
    const err = await expectApiError(withTools(tools), Anthropic.BadRequestError, 400);
    assert.equal(err.type, "invalid_request_error");
    assert.equal(err.apiMessage, message);
  };
  await refused(
    [{ name: "lookup", input_schema: { type: "object" } }, { ...WEB_SEARCH, allowed_domains: ["a.example"], blocked_domains: ["b.example"] }],
    "tools.1.web_search_20250305: Cannot specify both allowed_domains and blocked_domains in the same request",
  );
  await refused([{ ...WEB_FETCH, allowed_domains: ["a.example"], blocked_domains: ["b.example"] }], "tools.0.web_fetch_20250910: Cannot specify both allowed_domains and blocked_domains in the same request");
  await refused([{ ...WEB_SEARCH, blocked_domains: [] }], "tools.0.web_search_20250305.blocked_domains: Empty list of domains is ambiguous. Provide at least one domain or null.");
  await refused([{ ...WEB_SEARCH, name: "search" }], "tools.0.web_search_20250305.name: Input should be 'web_search'");
  await refused([{ type: "memory_20250818", name: "notes" }], "tools.0.memory_20250818.name: Input should be 'memory'");

  const ok = await withTools([
    { ...WEB_SEARCH, allowed_domains: ["a.example"], blocked_domains: null },
    { ...WEB_FETCH, blocked_domains: ["b.example"] },
    MEMORY,
    { name: "lookup", input_schema: { type: "object" } },
  ]);
  assert.match(ok.content[0].text, /^Echo: defs/);
});

test("blocks steps are checked when registered; a server tool call needs the tool declared", async () => {
  const register = (responses) => fetch(`${fake.url}/_control/scripts`, { method: "POST", body: JSON.stringify({ match: uniqueToken(), responses }) });
  const rejected = async (responses, pattern) => {
    const res = await register(responses);
    assert.equal(res.status, 400);
    assert.match((await res.json()).error, pattern);
  };
  await rejected([{ kind: "text", text: "ok" }, { kind: "blocks", blocks: [{ type: "web_search_tool_result", results: [] }] }], /^responses\[1\]: blocks\[0\]: web_search_tool_result needs a toolUseId/);
  await rejected([{ kind: "blocks", blocks: [{ type: "image" }] }], /unknown block type "image"/);
  await rejected([{ kind: "blocks", blocks: [{ type: "server_tool_use", name: "tool_search_tool_regex", input: {} }] }], /name must be one of web_search, web_fetch, code_execution, bash_code_execution, text_editor_code_execution$/);
  await rejected([{ kind: "blocks", blocks: [] }], /non-empty `blocks`/);
  await rejected([{ kind: "blocks", blocks: [{ type: "text", text: "x", citations: [{ citedText: "y" }] }] }], /citations\[0\]: url is required/);

  const token = uniqueToken();
  await script(token, [{ kind: "blocks", blocks: [{ type: "server_tool_use", name: "web_search", input: { query: "x" } }] }]);
  const err = await expectApiError(sdk().messages.create(params(`undeclared ${token}`)), Anthropic.BadRequestError, 400);
  assert.match(err.apiMessage, /declares no web_search tool/);
});

test("non-streaming requests get blocks steps assembled, citations and usage included", async () => {
  const token = uniqueToken();
  await script(token, [
    {
      kind: "blocks",
      usage: { server_tool_use: { web_search_requests: 7, web_fetch_requests: 0 } },
      blocks: [
        { type: "server_tool_use", name: "web_search", input: { query: "x" }, id: "srvtoolu_ns" },
        { type: "web_search_tool_result", results: [{ title: "T", url: "https://t.example/" }] },
        { type: "text", text: "Cited.", citations: [{ url: "https://t.example/", citedText: "c" }] },
      ],
    },
  ]);
  const message = await sdk().messages.create(params(`ns ${token}`, { tools: [WEB_SEARCH] }));
  assert.deepEqual(message.content[0].input, { query: "x" });
  assert.equal(message.content[1].tool_use_id, "srvtoolu_ns");
  assert.equal(message.content[2].citations[0].title, "T");
  assert.deepEqual(message.usage.server_tool_use, { web_search_requests: 7, web_fetch_requests: 0 });
});

// ---------------------------------------------------------------------------
// search_result blocks and their search_result_location citations
// ---------------------------------------------------------------------------

const SEARCH_PROJECT = { name: "search_project", description: "Search the project's files", input_schema: { type: "object", properties: { query: { type: "string" } } } };

/** A search_result block; `texts` become its text blocks; `citations` null leaves the key out. */
function searchResult(source, title, texts, citations = { enabled: true }) {
  return { type: "search_result", source, title, content: texts.map((text) => ({ type: "text", text })), ...(citations === null ? {} : { citations }) };
}

/**
 * A conversation holding three search results: #0 top level in the first user turn, #1 and #2 in the
 * tool_result of a client tool's call.
 */
function searchConversation(token, citations = { enabled: true }) {
  return [
    { role: "user", content: [searchResult("kb://readme", "README", ["The app deploys with wrangler."], citations), { type: "text", text: `How does it deploy? ${token}` }] },
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_search", name: "search_project", input: { query: "deploy schedule" } }] },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_search",
          content: [
            searchResult("kb://ops/deploy.md", "Deploying", ["Deploys run nightly at 02:00 UTC.", " A failed deploy is retried once.", " Rollbacks are manual."], citations),
            searchResult("kb://ops/oncall.md", "On call", ["Page the on-call engineer for failed rollbacks."], citations),
          ],
        },
      ],
    },
  ];
}

const searchRequest = (messages, extra = {}) => ({ model: "claude-test", max_tokens: 256, tools: [SEARCH_PROJECT], messages, ...extra });

test("search results: a citation of one in a tool's result streams as the API streams it, numbered across the request", async () => {
  const token = uniqueToken();
  const blocks = [
    { type: "text", text: "It deploys nightly: " },
    { type: "text", text: "at two in the morning, UTC.", citations: [{ searchResult: 1 }] },
    { type: "text", text: " Failures are retried, rollbacks are manual.", citations: [{ searchResult: 1, start: 1, end: 3 }, { type: "search_result_location", searchResult: 2 }] },
  ];
  await script(token, [{ kind: "blocks", blocks }, { kind: "blocks", blocks }]);
  const messages = searchConversation(token);

  const { message, events } = await streamWithEvents(searchRequest(messages));
  assert.equal(message.stop_reason, "end_turn");
  const nightly = {
    type: "search_result_location",
    cited_text: "Deploys run nightly at 02:00 UTC.",
    source: "kb://ops/deploy.md",
    title: "Deploying",
    search_result_index: 1,
    start_block_index: 0,
    end_block_index: 1,
  };
  const range = { ...nightly, cited_text: " A failed deploy is retried once. Rollbacks are manual.", start_block_index: 1, end_block_index: 3 };
  const oncall = {
    type: "search_result_location",
    cited_text: "Page the on-call engineer for failed rollbacks.",
    source: "kb://ops/oncall.md",
    title: "On call",
    search_result_index: 2,
    start_block_index: 0,
    end_block_index: 1,
  };
  assert.deepEqual(message.content, [
    { type: "text", text: "It deploys nightly: " },
    { type: "text", text: "at two in the morning, UTC.", citations: [nightly] },
    { type: "text", text: " Failures are retried, rollbacks are manual.", citations: [range, oncall] },
  ]);

  // On the wire: a cited block starts with citations: [], then every citations_delta before its text.
  const starts = events.filter((e) => e.type === "content_block_start");
  assert.equal("citations" in starts[0].content_block, false);
  assert.deepEqual(starts[1].content_block, { citations: [], type: "text", text: "" });
  const ofBlock = (index) => events.filter((e) => e.index === index).map((e) => e.delta?.type ?? e.type);
  assert.deepEqual(ofBlock(1), ["content_block_start", "citations_delta", ...Array(6).fill("text_delta"), "content_block_stop"]);
  assert.deepEqual(ofBlock(2).slice(0, 3), ["content_block_start", "citations_delta", "citations_delta"]);
  assert.deepEqual(events.filter((e) => e.delta?.type === "citations_delta").map((e) => e.delta.citation), [nightly, range, oncall]);

  // Not streamed: the same message, assembled.
  const created = await sdk().messages.create(searchRequest(messages));
  assert.deepEqual(created.content, message.content);
});

test("search results: the cited answer comes back as it was sent; a citation in it keeps its fields", async () => {
  const token = uniqueToken();
  await script(token, [{ kind: "blocks", blocks: [{ type: "text", text: "Nightly.", citations: [{ searchResult: 0 }] }] }]);
  const messages = searchConversation(token);
  const answer = await sdk().messages.stream(searchRequest(messages)).finalMessage();
  assert.equal(answer.content[0].citations[0].source, "kb://readme");

  const next = [...messages, { role: "assistant", content: answer.content }, { role: "user", content: "thanks" }];
  assert.equal((await sdk().messages.create(searchRequest(next))).content[0].text, "Echo: thanks");
  assert.deepEqual((await recorded(token)).at(-1).body.messages[3].content, JSON.parse(JSON.stringify(answer.content)), "sent back as it came");
  // Even once the search results are gone from the conversation (only the citation's shape is checked).
  const withoutResults = [{ role: "user", content: `again ${token}` }, { role: "assistant", content: answer.content }, { role: "user", content: "thanks" }];
  assert.equal((await sdk().messages.create(searchRequest(withoutResults))).content[0].text, "Echo: thanks");

  const { search_result_index, ...noIndex } = answer.content[0].citations[0];
  const broken = [...messages, { role: "assistant", content: [{ ...answer.content[0], citations: [noIndex] }] }, { role: "user", content: "thanks" }];
  const err = await expectApiError(sdk().messages.create(searchRequest(broken)), Anthropic.BadRequestError, 400);
  assert.equal(err.apiMessage, "messages.3.content.0.citations.0.search_result_index: Field required");
  const notIndex = [...messages, { role: "assistant", content: [{ ...answer.content[0], citations: [{ ...noIndex, search_result_index: "0" }] }] }, { role: "user", content: "thanks" }];
  const err2 = await expectApiError(sdk().messages.create(searchRequest(notIndex)), Anthropic.BadRequestError, 400);
  assert.equal(err2.apiMessage, "messages.3.content.0.citations.0.search_result_index: Input should be a valid integer");
});

test("search results: the default answer echoes a tool's search results; citations off everywhere is fine", async () => {
  const messages = searchConversation(uniqueToken(), null);
  const message = await sdk().messages.create(searchRequest(messages));
  assert.equal(message.content[0].text, "Tool said: Deploys run nightly at 02:00 UTC. A failed deploy is retried once. Rollbacks are manual.Page the on-call engineer for failed rollbacks.");
  const disabled = searchConversation(uniqueToken(), { enabled: false });
  assert.match((await sdk().messages.create(searchRequest(disabled))).content[0].text, /^Tool said: /);
});

test("search results the API would not take are refused, with the path to them", async () => {
  const refused = async (messages, message, extra) => {
    const err = await expectApiError(sdk().messages.create(searchRequest(messages, extra)), Anthropic.BadRequestError, 400);
    assert.equal(err.type, "invalid_request_error");
    assert.equal(err.apiMessage, message);
  };
  const token = uniqueToken();
  const conversation = searchConversation(token);
  /** The conversation with the tool result's first search result replaced by `replacement`. */
  const withToolResult = (replacement) => {
    const [first, call, results] = structuredClone(conversation);
    results.content[0].content[0] = replacement;
    return [first, call, results];
  };
  const atTool = "messages.2.content.0.content.0.search_result";
  const good = conversation[2].content[0].content[0];

  // Citations on all or none.
  const { citations, ...uncited } = good;
  await refused(
    withToolResult(uncited),
    `${atTool}.citations: citations must be enabled on all search results of a request or on none; search result 0 has them enabled, search result 1 does not`,
  );
  await refused(
    [{ role: "user", content: [searchResult("a", "A", ["x"]), searchResult("b", "B", ["y"], { enabled: false }), { type: "text", text: token }] }],
    "messages.0.content.1.search_result.citations: citations must be enabled on all search results of a request or on none; search result 0 has them enabled, search result 1 does not",
  );
  // With web search, on all.
  await refused(
    [{ role: "user", content: [searchResult("a", "A", ["x"], null), { type: "text", text: token }] }],
    "messages.0.content.0.search_result.citations: citations must be enabled on every search_result block when the web search tool is enabled",
    { tools: [SEARCH_PROJECT, WEB_SEARCH] },
  );

  // Malformed search results.
  const { source, ...noSource } = good;
  await refused(withToolResult(noSource), `${atTool}.source: Field required`);
  await refused(withToolResult({ ...good, source: "" }), `${atTool}.source: String should have at least 1 character`);
  await refused(withToolResult({ ...good, title: null }), `${atTool}.title: Input should be a valid string`);
  await refused(withToolResult({ ...good, content: [] }), `${atTool}.content: List should have at least 1 item after validation, not 0`);
  await refused(withToolResult({ ...good, content: "Deploys run nightly." }), `${atTool}.content: Input should be a valid list`);
  await refused(
    withToolResult({ ...good, content: [good.content[0], { type: "image", source: { type: "url", url: "https://x.example/a.png" } }] }),
    `${atTool}.content.1.type: Input should be 'text' (search results hold text blocks only)`,
  );
  await refused(withToolResult({ ...good, content: [{ type: "text", text: "" }] }), `${atTool}.content.0.text: text content blocks must be non-empty`);
  await refused(withToolResult({ ...good, content: [{ type: "text", text: " \n" }] }), `${atTool}.content.0.text: text content blocks must contain non-whitespace text`);

  // Where they may be: user turns only; a tool_result holding one holds nothing else.
  await refused(
    [conversation[0], { role: "assistant", content: [searchResult("a", "A", ["x"])] }, { role: "user", content: "go on" }],
    "messages.1.content.0: search_result blocks can only appear in user messages (or inside their tool results)",
  );
  const [first, call, results] = structuredClone(conversation);
  results.content[0].content.push({ type: "text", text: "2 results" });
  await refused([first, call, results], 'messages.2.content.0.content.2: a tool_result that holds search_result blocks can hold nothing else (found a "text" block)');

  // The same conversation as it should be is taken.
  assert.match((await sdk().messages.create(searchRequest(conversation))).content[0].text, /^Tool said: /);
});

test("search result citations are checked when registered, and against the request when played", async () => {
  const register = (citations) => fetch(`${fake.url}/_control/scripts`, { method: "POST", body: JSON.stringify({ match: uniqueToken(), responses: [{ kind: "blocks", blocks: [{ type: "text", text: "x", citations }] }] }) });
  const rejected = async (citations, pattern) => {
    const res = await register(citations);
    assert.equal(res.status, 400);
    assert.match((await res.json()).error, pattern);
  };
  await rejected([{ searchResult: -1 }], /^responses\[0\]: blocks\[0\]\.citations\[0\]: searchResult must be the cited search result's 0-based index in the request$/);
  await rejected([{ type: "search_result_location" }], /citations\[0\]: searchResult must be/);
  await rejected([{ searchResult: 0, start: 1.5 }], /citations\[0\]: start must be a 0-based block index/);
  await rejected([{ searchResult: 0 }, { searchResult: 0, start: 2, end: 2 }], /citations\[1\]: end must be an integer greater than start/);

  const token = uniqueToken();
  const unplayable = (citations) => ({ kind: "blocks", blocks: [{ type: "text", text: "Fine." }, { type: "text", text: "x", citations }] });
  await script(token, [unplayable([{ searchResult: 3 }]), unplayable([{ searchResult: 1, start: 2, end: 4 }]), unplayable([{ searchResult: 0 }])]);
  const fails = async (messages, message) => {
    const err = await expectApiError(sdk().messages.create(searchRequest(messages)), Anthropic.InternalServerError, 500);
    assert.equal(err.apiMessage, message);
  };
  const prefix = "fake-upstream: blocks[1].citations[0] cannot be played: ";
  await fails(searchConversation(token), `${prefix}it cites search result 3, but the request holds 3 search results`);
  await fails(searchConversation(token), `${prefix}it cites blocks [2, 4) of search result 1 (messages.2.content.0.content.0), which has 3 content blocks`);
  await fails(
    searchConversation(token, null),
    `${prefix}it cites search result 0 (messages.0.content.0), whose citations are not enabled; the API cites only search results with citations: { enabled: true }`,
  );
});

// ---------------------------------------------------------------------------
// code execution, containers and the Files API
// ---------------------------------------------------------------------------

const CODE_EXECUTION = { type: "code_execution_20250825", name: "code_execution" };
/** The API's timestamps: microseconds and "Z", e.g. "2026-07-30T18:53:29.651134Z". */
const ISO_MICROS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

async function control(path, body, base = fake.url) {
  const res = await fetch(`${base}/_control/${path}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) });
  assert.ok(res.ok, `${path}: ${res.status}`);
  return res.status === 204 ? undefined : res.json();
}

test("code: a bash turn streams as the API streams it, its container comes in message_delta, a file it made downloads", async () => {
  const token = uniqueToken();
  const csv = "n,fib\n10,55\n";
  await script(token, [
    {
      kind: "code",
      id: "srvtoolu_code",
      text: "Let me compute it.",
      command: "python3 fib.py > $OUTPUT_DIR/out.csv",
      stdout: "55\n",
      stderr: "note: cached\n",
      files: [{ name: "out.csv", mediaType: "text/csv", text: csv }],
      answer: "F(10) is 55.",
    },
  ]);
  const client = sdk();
  const stream = client.beta.messages.stream({ ...params(`fib ${token}`), tools: [CODE_EXECUTION], betas: ["files-api-2025-04-14"] });
  const events = [];
  stream.on("streamEvent", (e) => events.push(structuredClone(e)));
  const message = await stream.finalMessage();

  assert.equal(message.stop_reason, "end_turn");
  assert.deepEqual(message.content.map((b) => b.type), ["text", "server_tool_use", "bash_code_execution_tool_result", "text"]);
  assert.deepEqual(message.content[1], { type: "server_tool_use", id: "srvtoolu_code", name: "bash_code_execution", input: { command: "python3 fib.py > $OUTPUT_DIR/out.csv" } });
  const fileId = message.content[2].content.content[0]?.file_id;
  assert.match(fileId, /^file_01/);
  assert.deepEqual(message.content[2], {
    type: "bash_code_execution_tool_result",
    tool_use_id: "srvtoolu_code",
    content: { type: "bash_code_execution_result", stdout: "55\n", stderr: "note: cached\n", return_code: 0, content: [{ type: "bash_code_execution_output", file_id: fileId }] },
  });

  // The wire as recorded from the API: no container in message_start, no caller on the call or its result.
  const start = events.find((e) => e.type === "message_start").message;
  assert.equal("container" in start, false);
  const starts = events.filter((e) => e.type === "content_block_start");
  assert.deepEqual(starts[1].content_block, { type: "server_tool_use", id: "srvtoolu_code", name: "bash_code_execution", input: {} });
  assert.deepEqual(events.filter((e) => e.index === 2).map((e) => e.type), ["content_block_start", "content_block_stop"], "a result arrives whole");
  const pieces = events.filter((e) => e.index === 1 && e.type === "content_block_delta").map((e) => e.delta.partial_json);
  assert.equal(pieces[0], "");
  const delta = events.find((e) => e.type === "message_delta");
  assert.deepEqual(Object.keys(delta.delta), ["stop_reason", "stop_sequence", "container"]);
  assert.deepEqual(Object.keys(delta.delta.container), ["id", "expires_at"]);
  assert.match(delta.delta.container.id, /^container_01/);
  assert.match(delta.delta.container.expires_at, ISO_MICROS);
  assert.ok(Math.abs(Date.parse(delta.delta.container.expires_at) - Date.now() - 3_600_000) < 60_000, "a rolling hour ahead");
  assert.deepEqual(message.container, delta.delta.container);
  assert.deepEqual(delta.usage.server_tool_use, { web_search_requests: 0, web_fetch_requests: 0 });

  // What the code made is a downloadable file, through the beta and the GA Files API alike.
  const { created_at, ...meta } = await client.beta.files.retrieveMetadata(fileId);
  assert.deepEqual(meta, { id: fileId, type: "file", filename: "out.csv", mime_type: "text/csv", size_bytes: csv.length, downloadable: true });
  assert.match(created_at, ISO_MICROS);
  const download = await client.files.download(fileId);
  assert.equal(download.headers.get("content-type"), "text/csv");
  assert.equal(await download.text(), csv);
  const stats = await control("files");
  assert.equal(stats.files.find((f) => f.id === fileId).downloads, 1);
  assert.equal(stats.files.find((f) => f.id === fileId).source, "code");
  const [container] = (await control("containers")).containers.filter((c) => c.id === message.container.id);
  assert.deepEqual(container.files, [fileId]);

  // A non-streaming request gets the container in the message.
  await script(token, [{ kind: "code", command: "true" }]);
  const whole = await client.messages.create({ ...params(`fib ${token}`), tools: [CODE_EXECUTION] });
  assert.match(whole.container.id, /^container_01/);
  assert.notEqual(whole.container.id, message.container.id, "no container named, a fresh one");
  // A request without the tool runs in no container.
  const plain = await sdk().messages.stream(params(`plain ${token}`)).finalMessage();
  assert.equal(plain.container, undefined);
});

test("code: a request naming its container reuses it, uploads copied in; an unknown or expired one is refused", async () => {
  const token = uniqueToken();
  const client = sdk();
  const uploaded = await client.files.upload({ file: await toFile(Buffer.from("a,b\n1,2\n"), "data.csv", { type: "text/csv" }) });
  const ask = (content, extra = {}) => client.messages.stream({ model: "claude-test", max_tokens: 64, tools: [CODE_EXECUTION], messages: [{ role: "user", content }], ...extra }).finalMessage();

  const first = await ask([{ type: "text", text: `look ${token}` }, { type: "container_upload", file_id: uploaded.id }]);
  const id = first.container.id;
  assert.equal((await ask(`again ${token}`, { container: id })).container.id, id);
  assert.equal((await ask(`object ${token}`, { container: { id } })).container.id, id);
  const [container] = (await control("containers")).containers.filter((c) => c.id === id);
  assert.deepEqual(container.files, [uploaded.id]);

  // Recorded as sent: the tool definition, the container param, the upload block.
  const [firstReq, againReq, objectReq] = await recorded(token);
  assert.deepEqual(firstReq.body.tools, [CODE_EXECUTION]);
  assert.deepEqual(firstReq.body.messages[0].content[1], { type: "container_upload", file_id: uploaded.id });
  assert.equal(againReq.body.container, id);
  assert.deepEqual(objectReq.body.container, { id });

  const refused = async (promise, pattern, ErrorClass = Anthropic.BadRequestError, status = 400) => {
    const err = await expectApiError(promise, ErrorClass, status);
    assert.match(err.apiMessage, pattern);
    return err;
  };
  await refused(ask(`unknown ${token}`, { container: "container_01Nope" }), /^container: Container container_01Nope not found/);
  await refused(ask([{ type: "text", text: token }, { type: "container_upload", file_id: "file_01Nope" }]), /^messages\.0\.content\.1\.file_id: File not found: file_01Nope$/);
  await refused(
    client.messages.create(params(token, { messages: [{ role: "user", content: [{ type: "container_upload", file_id: uploaded.id }] }] })),
    /container_upload blocks require the code execution tool/,
  );

  await control("containers/expire", { id });
  const err = await refused(ask(`expired ${token}`, { container: id }), /has expired and can't be reused/);
  assert.equal(err.type, "invalid_request_error");
  assert.notEqual((await ask(`fresh ${token}`)).container.id, id, "without the param, a new container");
  // The answer to an expired container can be set, e.g. the untyped 500 seen in pydantic/pydantic-ai#7833.
  const other = (await ask(`other ${token}`)).container.id;
  await control("containers/expire", { id: other, status: 500, message: "Internal server error" });
  await refused(ask(`other ${token}`, { container: other }), /^Internal server error$/, Anthropic.InternalServerError, 500);
});

test("Files API: upload, metadata, content, delete, with the API's errors; uploads and downloads are counted", async () => {
  const own = await startFakeUpstream();
  try {
    const client = new Anthropic({ apiKey: "test", baseURL: own.url, maxRetries: 0 });
    const file = await client.beta.files.upload({ file: await toFile(Buffer.from("hello\n"), "notes/report.txt", { type: "text/plain" }), betas: ["files-api-2025-04-14"] });
    const { created_at, ...meta } = file;
    assert.deepEqual(meta, { id: file.id, type: "file", filename: "report.txt", mime_type: "text/plain", size_bytes: 6, downloadable: false });
    assert.match(created_at, ISO_MICROS);
    assert.deepEqual(await client.beta.files.retrieveMetadata(file.id), file);
    assert.deepEqual((await client.files.list()).data.map((f) => f.id), [file.id]);

    // An upload cannot be downloaded: only what a tool made can.
    const notDownloadable = await expectApiError(client.files.download(file.id), Anthropic.FileNotDownloadableError, 400);
    assert.equal(notDownloadable.errorCode, "file_not_downloadable");
    assert.equal(notDownloadable.type, "invalid_request_error");

    assert.deepEqual(await client.files.delete(file.id), { id: file.id, type: "file_deleted" });
    const gone = await expectApiError(client.beta.files.retrieveMetadata(file.id), Anthropic.NotFoundError, 404);
    assert.equal(gone.type, "not_found_error");
    await expectApiError(client.files.download("file_01Nope"), Anthropic.NotFoundError, 404);

    await control("files/limit", { maxBytes: 10 }, own.url);
    const tooLarge = await expectApiError(client.files.upload({ file: await toFile(Buffer.alloc(11), "big.bin") }), Anthropic.APIError, 413);
    assert.equal(tooLarge.type, "request_too_large");
    await control("files/limit", {}, own.url);
    await expectApiError(client.files.upload({ file: await toFile(Buffer.from("x"), "what?.txt") }), Anthropic.BadRequestError, 400);
    await expectApiError(client.files.upload({ file: await toFile(Buffer.from("x"), "a.txt"), expires_in_seconds: 60 }), Anthropic.BadRequestError, 400);
    const notMultipart = await fetch(`${own.url}/v1/files`, { method: "POST", headers: { "x-api-key": "k", "content-type": "application/json" }, body: "{}" });
    assert.equal(notMultipart.status, 400);
    assert.equal((await notMultipart.json()).error.type, "invalid_request_error");
    assert.equal((await fetch(`${own.url}/v1/files/${file.id}`)).status, 401);

    const expiring = await client.files.upload({ file: await toFile(Buffer.from("x"), "soon.txt"), expires_in_seconds: 3600 });
    assert.ok(Math.abs(Date.parse(expiring.expires_at) - Date.now() - 3_600_000) < 60_000);
    const stats = await control("files", undefined, own.url);
    assert.deepEqual([stats.uploads, stats.downloads], [2, 0], "refused uploads are not counted");
    assert.deepEqual(stats.files.map((f) => [f.filename, f.source]), [["soon.txt", "upload"]]);

    // Faults on request, by upload name or by file id, until the fake is reset.
    await control("files/fail", { filename: "flaky.csv", status: 413, type: "request_too_large", message: "File exceeds the maximum allowed size." }, own.url);
    const named = await expectApiError(client.files.upload({ file: await toFile(Buffer.from("a,b\n"), "flaky.csv") }), Anthropic.APIError, 413);
    assert.equal(named.type, "request_too_large");
    await control("files/fail", { id: expiring.id, status: 500 }, own.url);
    const byId = await expectApiError(client.beta.files.retrieveMetadata(expiring.id), Anthropic.InternalServerError, 500);
    assert.equal(byId.type, "api_error");
    assert.equal((await fetch(`${own.url}/_control/files/fail`, { method: "POST", body: JSON.stringify({ status: 500 }) })).status, 400, "a fault names a file or an upload");
  } finally {
    await own.close();
  }
});

test("code: the text editor, error results, the Python-only 20250522 version, and what the API refuses", async () => {
  const token = uniqueToken();
  const view = { type: "text_editor_code_execution_view_result", file_type: "text", content: "print(1)", num_lines: 1, start_line: 1, total_lines: 1 };
  await script(token, [
    {
      kind: "blocks",
      blocks: [
        { type: "server_tool_use", name: "text_editor_code_execution", input: { command: "view", path: "/tmp/a.py" } },
        { type: "text_editor_code_execution_tool_result", content: view },
        { type: "server_tool_use", name: "text_editor_code_execution", input: { command: "view", path: "/tmp/none" } },
        { type: "text_editor_code_execution_tool_result", errorCode: "file_not_found", errorMessage: "No such file" },
        { type: "server_tool_use", name: "bash_code_execution", input: { command: "sleep 999" } },
        { type: "bash_code_execution_tool_result", errorCode: "execution_time_exceeded" },
      ],
    },
  ]);
  const { message } = await streamWithEvents(params(`edit ${token}`, { tools: [CODE_EXECUTION] }));
  const [viewCall, viewed, , missing, , timedOut] = message.content;
  assert.deepEqual(viewed, { type: "text_editor_code_execution_tool_result", tool_use_id: viewCall.id, content: view });
  assert.deepEqual(missing.content, { type: "text_editor_code_execution_tool_result_error", error_code: "file_not_found", error_message: "No such file" });
  assert.deepEqual(timedOut.content, { type: "bash_code_execution_tool_result_error", error_code: "execution_time_exceeded" });

  // Sent back, the turn is checked as web search turns are: each call needs its result in the same turn.
  const ask = (messages) => sdk().messages.stream({ model: "claude-test", max_tokens: 64, tools: [CODE_EXECUTION], messages }).finalMessage();
  const user = { role: "user", content: `edit ${token}` };
  assert.match((await ask([user, { role: "assistant", content: message.content }, { role: "user", content: "ok" }])).content[0].text, /^Echo: ok/);
  const err = await expectApiError(ask([user, { role: "assistant", content: message.content.slice(0, 1) }]), Anthropic.BadRequestError, 400);
  assert.equal(err.apiMessage, `messages.1: \`text_editor_code_execution\` tool use with id \`${viewCall.id}\` was found without a corresponding \`text_editor_code_execution_tool_result\` block`);

  // code_execution_20250522: Python only, code_execution_tool_result.
  const python = { type: "code_execution_20250522", name: "code_execution" };
  await script(token, [
    { kind: "code", version: "20250522", code: "print(2+2)", stdout: "4\n", files: [{ name: "plot.png", base64: "iVBORw0KGgo=" }] },
    { kind: "code", command: "ls" },
    { kind: "code", command: "ls" },
  ]);
  const py = await sdk().messages.stream(params(`py ${token}`, { tools: [python] })).finalMessage();
  assert.deepEqual(py.content[0].input, { code: "print(2+2)" });
  assert.equal(py.content[0].name, "code_execution");
  const plot = py.content[1].content.content[0].file_id;
  assert.deepEqual(py.content[1], {
    type: "code_execution_tool_result",
    tool_use_id: py.content[0].id,
    content: { type: "code_execution_result", stdout: "4\n", stderr: "", return_code: 0, content: [{ type: "code_execution_output", file_id: plot }] },
  });
  assert.deepEqual(Buffer.from(await (await sdk().files.download(plot)).arrayBuffer()), Buffer.from("iVBORw0KGgo=", "base64"));
  const bashOnPython = await expectApiError(sdk().messages.create(params(`py ${token}`, { tools: [python] })), Anthropic.BadRequestError, 400);
  assert.match(bashOnPython.apiMessage, /calls bash_code_execution, but the request's code execution tool is code_execution_20250522/);
  const undeclared = await expectApiError(sdk().messages.create(params(`py ${token}`)), Anthropic.BadRequestError, 400);
  assert.match(undeclared.apiMessage, /declares no code_execution tool/);
  const badName = await expectApiError(sdk().messages.create(params(token, { tools: [{ ...CODE_EXECUTION, name: "python" }] })), Anthropic.BadRequestError, 400);
  assert.equal(badName.apiMessage, "tools.0.code_execution_20250825.name: Input should be 'code_execution'");

  // Steps that can never be played are refused when registered.
  const register = (responses) => fetch(`${fake.url}/_control/scripts`, { method: "POST", body: JSON.stringify({ match: uniqueToken(), responses }) });
  const rejected = async (responses, pattern) => {
    const res = await register(responses);
    assert.equal(res.status, 400);
    assert.match((await res.json()).error, pattern);
  };
  await rejected([{ kind: "code", stdout: "x" }], /needs a `command`/);
  await rejected([{ kind: "code", command: "x", files: [{ name: "a.txt" }] }], /files\[0\] needs text or base64/);
  await rejected([{ kind: "blocks", blocks: [{ type: "server_tool_use", name: "text_editor_code_execution", input: {} }, { type: "text_editor_code_execution_tool_result" }] }], /content\.type must be one of/);
});

// ---------------------------------------------------------------------------
// control API and default answer details
// ---------------------------------------------------------------------------

test("requests are recorded with parsed body and lower-cased headers", async () => {
  const token = uniqueToken();
  const client = sdk({ defaultHeaders: { "X-Custom-Thing": "yes" } });
  const body = {
    model: "claude-test",
    max_tokens: 99,
    system: [{ type: "text", text: "You are helpful.", cache_control: { type: "ephemeral" } }],
    tools: [{ name: "lookup", description: "Look up", input_schema: { type: "object", properties: {} } }],
    messages: [
      { role: "user", content: `first ${token}` },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hmm", signature: "sig_abc" },
          { type: "tool_use", id: "toolu_1", name: "lookup", input: { q: 1 } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "it is sunny" }] }] },
    ],
  };
  const message = await client.messages.stream(body).finalMessage();
  assert.equal(message.content[0].text, "Tool said: it is sunny");

  const requests = await recorded(token);
  assert.equal(requests.length, 1);
  const [req] = requests;
  assert.deepEqual(req.body, { ...body, stream: true });
  // SDK 1.x sends apiKey as "Authorization: Bearer <key>".
  assert.equal(req.headers["authorization"] ?? `Bearer ${req.headers["x-api-key"]}`, "Bearer test");
  assert.equal(req.headers["x-custom-thing"], "yes");
  assert.ok(req.headers["anthropic-version"]);
  assert.equal(typeof req.receivedAt, "number");
  assert.deepEqual(await recorded(`${token}-nothing`), []);
});

test("the most recently registered matching script with steps left wins", async () => {
  const token = uniqueToken();
  await script(token, [{ kind: "text", text: "older one" }, { kind: "text", text: "older two" }]);
  await script(`${token}-specific`, [{ kind: "text", text: "newer" }]);
  const ask = async (text) => (await sdk().messages.stream(params(text)).finalMessage()).content[0].text;

  assert.equal(await ask(`${token}-specific`), "newer"); // both match; newest wins
  assert.equal(await ask(`${token}-specific`), "older one"); // newer is used up
  assert.equal(await ask(token), "older two");
  assert.equal(await ask(token), `Echo: ${token}`);
});

test("non-streaming requests get the assembled message", async () => {
  const token = uniqueToken();
  await script(token, [{ kind: "tool_use", tools: [{ name: "t", input: { x: [1, "y"] } }] }]);
  const message = await sdk().messages.create(params(`ns ${token}`));
  assert.equal(message.type, "message");
  assert.equal(message.stop_reason, "tool_use");
  assert.deepEqual(message.content[0].input, { x: [1, "y"] });
});

test("health, reset and unknown routes", async () => {
  const own = await startFakeUpstream();
  try {
    assert.deepEqual(await (await fetch(`${own.url}/_control/health`)).json(), { ok: true });
    const token = uniqueToken();
    const client = new Anthropic({ apiKey: "test", baseURL: own.url, maxRetries: 0 });
    await fetch(`${own.url}/_control/scripts`, { method: "POST", body: JSON.stringify({ match: token, responses: [{ kind: "text", text: "scripted" }] }) });
    assert.equal((await fetch(`${own.url}/_control/reset`, { method: "POST" })).status, 204);
    const message = await client.messages.stream(params(token)).finalMessage();
    assert.equal(message.content[0].text, `Echo: ${token}`, "reset dropped the script");
    const listed = await (await fetch(`${own.url}/_control/requests?match=${token}`)).json();
    assert.equal(listed.requests.length, 1, "reset cleared earlier requests; this one is recorded");
    assert.equal((await fetch(`${own.url}/nope`)).status, 404);
    assert.equal((await fetch(`${own.url}/_control/scripts`, { method: "POST", body: "{}" })).status, 400);
  } finally {
    await own.close();
  }
});

test("benchmark knob: N filler words with a delay between deltas", async () => {
  const own = await startFakeUpstream({ defaultTokens: 5, tokenDelayMs: 10 });
  try {
    const client = new Anthropic({ apiKey: "test", baseURL: own.url, maxRetries: 0 });
    const startedAt = Date.now();
    const { events } = await drain(await client.messages.create(params("anything", { stream: true })));
    const deltas = events.filter((e) => e.type === "content_block_delta");
    assert.equal(deltas.length, 5);
    assert.equal(textOf(events).split(" ").length, 5);
    assert.ok(Date.now() - startedAt >= 5 * 10 - 5);
  } finally {
    await own.close();
  }
});

test("cli.mjs prints its URL, serves, and exits on SIGTERM", async () => {
  const cli = fileURLToPath(new URL("./cli.mjs", import.meta.url));
  const child = spawn(process.execPath, [cli, "--port", "0", "--tokens", "3"], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const [line] = await once(child.stdout, "data");
    const match = /^fake-upstream listening on (http:\/\/127\.0\.0\.1:\d+)\n$/.exec(line.toString());
    assert.ok(match, `unexpected output: ${line}`);
    const client = new Anthropic({ apiKey: "test", baseURL: match[1], maxRetries: 0 });
    const message = await client.messages.stream(params("hi")).finalMessage();
    assert.equal(message.content[0].text, "lorem ipsum dolor");
  } finally {
    child.kill("SIGTERM");
  }
  const [code] = await once(child, "exit");
  assert.equal(code, 0);
});

// ---------------------------------------------------------------------------

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
