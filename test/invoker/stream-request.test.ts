// The deployment's streamed request (one fetch with the SDK's own headers, built once) against what
// the SDK's request path sends and throws: the invoker classifies the same errors either way.
import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { directStream } from "../../worker/invoker/stream-request";

type Sent = { url: string; headers: Headers; body: Record<string, unknown> };

const events = [
  { type: "message_start", message: { id: "m", type: "message", role: "assistant", model: "claude-sonnet-4-6", content: [], usage: { input_tokens: 3, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } },
  { type: "content_block_stop", index: 0 },
  { type: "message_stop" },
];
const sse = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");

/** A fetch that records what is sent and answers `answer()`. */
function recording(answer: () => Response | Promise<Response>) {
  const sent: Sent[] = [];
  const fetcher: typeof fetch = async (input, init) => {
    sent.push({ url: String(input), headers: new Headers(init?.headers), body: JSON.parse(String(init?.body)) });
    return answer();
  };
  return { sent, fetcher };
}

const client = new Anthropic({ apiKey: "sk-test", baseURL: "https://api.test", maxRetries: 0, openTelemetry: false });
const params = { model: "claude-sonnet-4-6", max_tokens: 64, stream: true as const, messages: [{ role: "user" as const, content: "hi" }] };
const signal = () => new AbortController().signal;

describe("the streamed request, one fetch", () => {
  it("sends the SDK's headers and the body, with the betas in their header, and reads the stream with the SDK", async () => {
    const { sent, fetcher } = recording(() => new Response(sse, { headers: { "content-type": "text/event-stream" } }));
    const open = directStream(client, fetcher);
    const read: string[] = [];
    for await (const e of await open({ ...params, betas: ["compact-2026-01-12"] }, signal())) read.push(e.type);
    expect(read).toEqual(events.map((e) => e.type));
    for await (const _ of await open(params, signal()));
    const [beta, plain] = sent;
    expect(beta.url).toBe("https://api.test/v1/messages");
    expect(beta.headers.get("authorization")).toBe("Bearer sk-test");
    expect(beta.headers.get("anthropic-version")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(beta.headers.get("content-type")).toBe("application/json");
    expect(beta.headers.get("anthropic-beta")).toBe("compact-2026-01-12");
    expect(beta.body).toEqual(params);
    expect(plain.headers.get("anthropic-beta")).toBeNull();
  });

  it("throws the SDK's errors: a status with its headers, a failed connection, an abort", async () => {
    const overloaded = recording(() => new Response(JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }), { status: 529, headers: { "retry-after": "7" } }));
    const err = await directStream(client, overloaded.fetcher)(params, signal()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(529);
    expect((err as APIError).headers?.get("retry-after")).toBe("7");
    expect((err as APIError).message).toMatch(/Overloaded/);

    const down = recording(() => Promise.reject(new TypeError("connection refused")));
    await expect(directStream(client, down.fetcher)(params, signal())).rejects.toBeInstanceOf(APIConnectionError);

    const stopped = new AbortController();
    stopped.abort();
    await expect(directStream(client, down.fetcher)(params, stopped.signal)).rejects.toBeInstanceOf(APIUserAbortError);
  });
});
