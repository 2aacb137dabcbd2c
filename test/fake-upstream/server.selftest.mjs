// Self-test of the fake upstream, driven through the REAL @anthropic-ai/sdk client so
// we know the SDK parses everything the fake emits.
//   node --test test/fake-upstream/server.selftest.mjs

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
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
