// /v1/chat/completions and /v1/models driven by OpenAI's own SDK (the `openai` package), against the fake
// Messages API: the orchestrator answers a Chat Completions client, streaming and not, with usage, one
// thread per conversation, and OpenAI's error shape.
import OpenAI from "openai";
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { api, json, marker, messagesOf, script, settle, upstreamRequests } from "../helpers";
import { newKey } from "./keys";

let secret: string;
let model: string;
const client = (apiKey = secret) => new OpenAI({ apiKey, baseURL: "https://app.test/v1", fetch: (input, init) => SELF.fetch(input as RequestInfo, init as RequestInit), maxRetries: 0 });

beforeAll(async () => {
  secret = (await newKey("openai tests")).secret;
  model = (await json(api("/api/models"))).default;
});

describe("POST /v1/chat/completions with the openai SDK", () => {
  it("answers without streaming: the orchestrator's answer, usage, and the thread in X-Thread-Id", async () => {
    const m = marker("oai");
    await script(m, [{ kind: "text", text: "Hello from the orchestrator.", usage: { input_tokens: 42, output_tokens: 7 } }]);
    const { data, response } = await client().chat.completions.create({ model, messages: [{ role: "user", content: `${m} Say hello` }] }).withResponse();
    expect(data.object).toBe("chat.completion");
    expect(data.model).toBe(model);
    expect(data.choices[0].message).toMatchObject({ role: "assistant", content: "Hello from the orchestrator." });
    expect(data.choices[0].finish_reason).toBe("stop");
    expect(data.usage).toMatchObject({ completion_tokens: 7, total_tokens: data.usage!.prompt_tokens + 7 });
    expect(data.usage!.prompt_tokens).toBeGreaterThanOrEqual(42);
    const threadId = response.headers.get("x-thread-id")!;
    expect(threadId).toMatch(/^thr_/);
    const thread = (await json(api(`/api/threads/${threadId}`))).thread;
    expect(thread.kind).toBe("api");
    // The whole pipeline answered: the request the model got has the orchestrator's system prompt.
    const [request] = (await upstreamRequests(m));
    expect(JSON.stringify(request.body.system)).toContain(`[Thread: ${threadId} (api)]`);
    await settle();
  });

  it("streams chunks that add up to the answer, then the finish and the usage", async () => {
    const m = marker("oai-stream");
    const text = "One, two, three, four, five.";
    await script(m, [{ kind: "text", text, chunks: ["One, ", "two, ", "three, ", "four, ", "five."], delayMs: 40, usage: { output_tokens: 9 } }]);
    const stream = await client().chat.completions.create({ model, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: `${m} Count` }] });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const content = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    expect(content).toBe(text);
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThan(1);
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe("stop");
    expect(chunks.at(-1)!.usage).toMatchObject({ completion_tokens: 9 });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    await settle();
  });

  it("continues one thread over a three-turn conversation sent the way clients send it", async () => {
    const m = marker("oai-turns");
    await script(m, [
      { kind: "text", text: "Paris is the capital of France." },
      { kind: "text", text: "About 2.1 million people live there." },
      { kind: "text", text: "The Eiffel Tower." },
    ]);
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "system", content: "Answer briefly." }];
    const threads: string[] = [];
    for (const question of [`${m} What is the capital of France?`, "How many people live there?", "Its best-known landmark?"]) {
      messages.push({ role: "user", content: question });
      const { data, response } = await client().chat.completions.create({ model, messages }).withResponse();
      messages.push({ role: "assistant", content: data.choices[0].message.content });
      threads.push(response.headers.get("x-thread-id")!);
    }
    expect(new Set(threads).size).toBe(1);
    const texts = (await messagesOf(threads[0], "?kinds=text")).messages.map((x: any) => `${x.role}: ${x.content}`);
    expect(texts).toEqual([
      `user: ${m} What is the capital of France?`,
      "assistant: Paris is the capital of France.",
      "user: How many people live there?",
      "assistant: About 2.1 million people live there.",
      "user: Its best-known landmark?",
      "assistant: The Eiffel Tower.",
    ]);
    // The system message is the thread's instructions, and the model saw the earlier turns.
    expect((await json(api(`/api/threads/${threads[0]}`))).thread.instructions).toBe("Answer briefly.");
    const last = (await upstreamRequests(m)).at(-1)!;
    expect(last.body.messages.length).toBe(5);
    await settle();
  });

  it("starts a thread with the conversation a client brings as its history", async () => {
    const m = marker("oai-history");
    await script(m, [{ kind: "text", text: "Then it is 12." }]);
    const { data, response } = await client()
      .chat.completions.create({
        model,
        messages: [
          { role: "user", content: `${m} Take 5.` },
          { role: "assistant", content: "Taken: 5." },
          { role: "user", content: "Add 7." },
        ],
      })
      .withResponse();
    expect(data.choices[0].message.content).toBe("Then it is 12.");
    const threadId = response.headers.get("x-thread-id")!;
    const texts = (await messagesOf(threadId, "?kinds=text")).messages.map((x: any) => x.content);
    expect(texts).toEqual([`${m} Take 5.`, "Taken: 5.", "Add 7.", "Then it is 12."]);
    const [request] = (await upstreamRequests(m));
    expect(request.body.messages.map((x: any) => x.role)).toEqual(["user", "assistant", "user"]);
    await settle();
  });

  it("continues the thread X-Thread-Id names, taking only the last user message", async () => {
    const m = marker("oai-header");
    await script(m, [{ kind: "text", text: "first" }, { kind: "text", text: "second" }]);
    const first = await client().chat.completions.create({ model, messages: [{ role: "user", content: `${m} one` }] }).withResponse();
    const threadId = first.response.headers.get("x-thread-id")!;
    const second = await client()
      .chat.completions.create({ model, messages: [{ role: "user", content: "something the thread never saw" }, { role: "user", content: `${m} two` }] }, { headers: { "X-Thread-Id": threadId } })
      .withResponse();
    expect(second.response.headers.get("x-thread-id")).toBe(threadId);
    const texts = (await messagesOf(threadId, "?kinds=text")).messages.map((x: any) => x.content);
    expect(texts).toEqual([`${m} one`, "first", `something the thread never saw\n\n${m} two`, "second"]);
    await settle();
  });

  it("lists the deployment's models", async () => {
    const page = await client().models.list();
    expect(page.data.map((x) => x.id)).toContain(model);
    expect(page.data[0]).toMatchObject({ object: "model", owned_by: "anthropic" });
  });
});

describe("bad requests, in OpenAI's error shape", () => {
  const raw = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${secret}` }) =>
    api("/v1/chat/completions", { body, headers: { "content-type": "application/json", ...headers } });

  it("a bogus or revoked key is 401", async () => {
    await expect(client("eo_not-a-key").chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({ status: 401, code: "invalid_api_key", type: "authentication_error" });
    const { key, secret: doomed } = await newKey("doomed");
    expect((await api(`/api/keys/${key.id}`, { method: "DELETE" })).status).toBe(204);
    const res = await raw({ model, messages: [{ role: "user", content: "hi" }] }, { authorization: `Bearer ${doomed}` });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: { message: expect.any(String), type: "authentication_error", code: "invalid_api_key", param: null } });
  });

  it("an unknown model is 404 model_not_found", async () => {
    await expect(client().chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({ status: 404, code: "model_not_found" });
  });

  it("empty messages, a client's own tools, a tool message, an image and n > 1 are 400", async () => {
    for (const body of [
      { model, messages: [] },
      { model, messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "f", parameters: {} } }] },
      { model, messages: [{ role: "user", content: "hi" }, { role: "tool", tool_call_id: "x", content: "42" }] },
      { model, messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://x.test/a.png" } }] }] },
      { model, messages: [{ role: "user", content: "hi" }], n: 2 },
      { model, messages: [{ role: "assistant", content: "no question" }] },
      "{not json",
    ]) {
      const res = await raw(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const err = (await res.json<any>()).error;
      expect(err).toMatchObject({ type: "invalid_request_error", message: expect.any(String) });
    }
  });

  it("a body past the limit is 413", async () => {
    const res = await raw({ model, messages: [{ role: "user", content: "x".repeat(5 * 1024 * 1024) }] });
    expect(res.status).toBe(413);
    expect((await res.json<any>()).error).toMatchObject({ type: "invalid_request_error" });
  });
});
