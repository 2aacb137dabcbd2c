import Anthropic, { APIError } from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Invoker, type InvokeRequest } from "../../worker/invoker/invoke";

/** A Messages API that answers "ok", and refuses the compaction beta when `refuses` says so. */
function upstream(refuses: boolean) {
  const requests: { beta: boolean; body: Record<string, unknown> }[] = [];
  const answer = async function* () {
    yield { type: "message_start", message: { usage: { input_tokens: 10, output_tokens: 1 } } };
    yield { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } };
    yield { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } };
    yield { type: "content_block_stop", index: 0 };
    yield { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } };
    yield { type: "message_stop" };
  };
  const create = (beta: boolean) => async (body: Record<string, unknown>) => {
    requests.push({ beta, body });
    if (beta && refuses) {
      const message = "Unexpected value(s) `compact-2026-01-12` for the `anthropic-beta` header.";
      throw new APIError(400, { type: "error", error: { type: "invalid_request_error", message } }, message, new Headers());
    }
    return answer();
  };
  const client = { messages: { create: create(false) }, beta: { messages: { create: create(true) } } } as unknown as Anthropic;
  const invoker = new Invoker(client, { maxTokens: 1024, thinking: null, maxCodeRuns: 20, maxToolTurns: 2, retryAttempts: 1, retryBaseMs: 1 });
  return { invoker, requests };
}

function request(over: Partial<InvokeRequest> = {}): InvokeRequest {
  return {
    model: "claude-sonnet-4-6",
    system: ["You are terse."],
    prompt: "hi",
    history: [],
    tools: [],
    runTool: async () => ({ content: "", isError: false }),
    onEvent: () => {},
    signal: new AbortController().signal,
    compactAt: 150_000,
    ...over,
  };
}

const compacting = (r: { beta: boolean; body: Record<string, unknown> }) => r.beta && r.body.context_management !== undefined;

afterEach(() => vi.restoreAllMocks());

describe("the invoker and the compaction beta", () => {
  it("sends the edit through the beta while the upstream takes it", async () => {
    const { invoker, requests } = upstream(false);
    await invoker.invoke(request());
    await invoker.invoke(request({ compactAt: null }));
    expect(requests.map(compacting)).toEqual([true, false]);
  });

  it("goes on without it once refused, and leaves it out of its next requests without being told", async () => {
    const { invoker, requests } = upstream(true);
    const refused = vi.fn();
    expect((await invoker.invoke(request({ onCompactionRefused: refused }))).output).toBe("ok");
    expect((await invoker.invoke(request({ onCompactionRefused: refused }))).output).toBe("ok");
    expect(requests.map(compacting)).toEqual([true, false, false]);
    expect(refused).toHaveBeenCalledTimes(1);
  });

  it("asks again a day later: the upstream may have gained it", async () => {
    const { invoker, requests } = upstream(true);
    const now = Date.now();
    const clock = vi.spyOn(Date, "now").mockReturnValue(now);
    await invoker.invoke(request());
    clock.mockReturnValue(now + 23 * 3_600_000);
    await invoker.invoke(request());
    clock.mockReturnValue(now + 25 * 3_600_000);
    await invoker.invoke(request());
    expect(requests.map(compacting)).toEqual([true, false, false, true, false]);
  });

  it("remembers it per invoker: another one asks", async () => {
    const first = upstream(true);
    await first.invoker.invoke(request());
    const second = upstream(true);
    await second.invoker.invoke(request());
    expect(second.requests.map(compacting)).toEqual([true, false]);
  });
});
