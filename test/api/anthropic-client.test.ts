// /v1/messages driven by Anthropic's own SDK (@anthropic-ai/sdk), against the fake Messages API: the
// orchestrator answers a Messages API client, streaming (the SDK's MessageStream) and not, with its
// error shape; the key as x-api-key (the SDK's way) or as a bearer token.
import Anthropic from "@anthropic-ai/sdk";
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { api, json, marker, messagesOf, script, settle } from "../helpers";
import { newKey } from "./keys";

let secret: string;
let model: string;
const sdkFetch = (input: unknown, init?: unknown) => SELF.fetch(input as RequestInfo, init as RequestInit);
const client = (apiKey = secret) => new Anthropic({ apiKey, baseURL: "https://app.test", fetch: sdkFetch as typeof fetch, maxRetries: 0 });

beforeAll(async () => {
  secret = (await newKey("anthropic tests")).secret;
  model = (await json(api("/api/models"))).default;
});

describe("POST /v1/messages with the Anthropic SDK", () => {
  it("answers without streaming: one text block, usage, the thread in X-Thread-Id", async () => {
    const m = marker("ant");
    await script(m, [{ kind: "text", text: "Bonjour.", usage: { input_tokens: 30, output_tokens: 3 } }]);
    const { data, response } = await client().messages.create({ model, max_tokens: 256, system: "Answer in French.", messages: [{ role: "user", content: `${m} Say hello` }] }).withResponse();
    expect(data).toMatchObject({ type: "message", role: "assistant", model, stop_reason: "end_turn", content: [{ type: "text", text: "Bonjour." }] });
    expect(data.usage).toMatchObject({ output_tokens: 3 });
    expect(data.usage.input_tokens + (data.usage.cache_read_input_tokens ?? 0) + (data.usage.cache_creation_input_tokens ?? 0)).toBeGreaterThanOrEqual(30);
    const threadId = response.headers.get("x-thread-id")!;
    expect((await json(api(`/api/threads/${threadId}`))).thread).toMatchObject({ kind: "api", instructions: "Answer in French." });
    await settle();
  });

  it("streams: the SDK's MessageStream gathers the text and the final message", async () => {
    const m = marker("ant-stream");
    await script(m, [{ kind: "text", text: "Alpha beta gamma delta.", chunks: ["Alpha ", "beta ", "gamma ", "delta."], delayMs: 40, usage: { output_tokens: 5 } }]);
    const stream = client().messages.stream({ model, max_tokens: 256, messages: [{ role: "user", content: [{ type: "text", text: `${m} Letters` }] }] });
    const deltas: string[] = [];
    stream.on("text", (t) => deltas.push(t));
    const final = await stream.finalMessage();
    expect(deltas.join("")).toBe("Alpha beta gamma delta.");
    expect(deltas.length).toBeGreaterThan(1);
    expect(final.content).toEqual([{ type: "text", text: "Alpha beta gamma delta.", citations: null }].map(({ citations: _, ...b }) => expect.objectContaining(b)));
    expect(final.stop_reason).toBe("end_turn");
    expect(final.usage.output_tokens).toBe(5);
    await settle();
  });

  it("continues one thread over three turns, with the key as a bearer token", async () => {
    const m = marker("ant-turns");
    await script(m, [{ kind: "text", text: "One." }, { kind: "text", text: "Two." }, { kind: "text", text: "Three." }]);
    const bearer = new Anthropic({ authToken: secret, apiKey: null, baseURL: "https://app.test", fetch: sdkFetch as typeof fetch, maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [];
    const threads = new Set<string>();
    for (const q of [`${m} first`, "second", "third"]) {
      messages.push({ role: "user", content: q });
      const { data, response } = await bearer.messages.create({ model, max_tokens: 100, messages }).withResponse();
      messages.push({ role: "assistant", content: data.content });
      threads.add(response.headers.get("x-thread-id")!);
    }
    expect(threads.size).toBe(1);
    const [threadId] = threads;
    expect((await messagesOf(threadId, "?kinds=text")).messages.map((x: any) => x.content)).toEqual([`${m} first`, "One.", "second", "Two.", "third", "Three."]);
    await settle();
  });
});

describe("bad requests, in Anthropic's error shape", () => {
  it("a bogus key is 401 authentication_error", async () => {
    await expect(client("eo_bogus").messages.create({ model, max_tokens: 10, messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({
      status: 401,
      error: { type: "error", error: { type: "authentication_error" } },
    });
  });

  it("an unknown model is 404 not_found_error; empty messages and tools are 400", async () => {
    await expect(client().messages.create({ model: "claude-nonexistent", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({ status: 404, error: { error: { type: "not_found_error" } } });
    await expect(client().messages.create({ model, max_tokens: 10, messages: [] })).rejects.toMatchObject({ status: 400, error: { type: "error", error: { type: "invalid_request_error" } } });
    await expect(
      client().messages.create({ model, max_tokens: 10, messages: [{ role: "user", content: "hi" }], tools: [{ name: "f", input_schema: { type: "object" } }] }),
    ).rejects.toMatchObject({ status: 400, error: { error: { type: "invalid_request_error", message: expect.stringContaining("tools") } } });
  });

  it("a body past the limit is 413 request_too_large", async () => {
    const res = await api("/v1/messages", { body: { model, max_tokens: 10, messages: [{ role: "user", content: "x".repeat(5 * 1024 * 1024) }] }, headers: { "x-api-key": secret } });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ type: "error", error: { type: "request_too_large", message: expect.any(String) } });
  });

  it("GET /v1/models answers the Models API's shape to a client that sends its version header", async () => {
    const page = await client().models.list();
    expect(page.data.map((x) => x.id)).toContain(model);
    expect(page.data[0]).toMatchObject({ type: "model", display_name: expect.any(String) });
  });
});
