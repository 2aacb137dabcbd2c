import { APIError } from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { estimateTokens, normalizeConversation, windowByBudget, type StoredTurn } from "../../worker/invoker/conversation";
import { ABORT_STOP, ABORT_TIMEOUT, classify, CutStreamError } from "../../worker/invoker/errors";
import type { ApiMessage } from "../../worker/invoker/types";

const user = (text: string): ApiMessage => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text: string): ApiMessage => ({ role: "assistant", content: [{ type: "text", text }] });
const turn = (exchange: string, message: ApiMessage): StoredTurn => ({ exchange, message, tokens: estimateTokens(message) });

describe("normalizeConversation", () => {
  it("merges consecutive turns of one role and drops empty text, keeping every block", () => {
    const out = normalizeConversation([user("a"), user("b"), assistant(""), { role: "assistant", content: "c" }, user("d")]);
    expect(out).toEqual([
      { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
      { role: "assistant", content: [{ type: "text", text: "c" }] },
      { role: "user", content: [{ type: "text", text: "d" }] },
    ]);
  });
});

describe("windowByBudget", () => {
  const toolUse: ApiMessage = { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "x__y", input: {} }] };
  const toolResult: ApiMessage = { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] };
  const turns = [
    turn("e1", user("x".repeat(400))),
    turn("e1", toolUse),
    turn("e1", toolResult),
    turn("e1", assistant("done")),
    turn("e2", user("y".repeat(400))),
    turn("e2", assistant("fine")),
  ];

  it("keeps everything that fits", () => {
    expect(windowByBudget(turns, 10_000)).toEqual({ messages: turns.map((t) => t.message), dropped: 0 });
  });

  it("drops the oldest whole exchange, tool pair and all", () => {
    const second = turns.filter((t) => t.exchange === "e2").reduce((n, t) => n + t.tokens, 0);
    const { messages, dropped } = windowByBudget(turns, second + 5);
    expect(dropped).toBe(1);
    expect(messages).toEqual([turns[4].message, turns[5].message]);
  });

  it("can drop everything when even the newest exchange does not fit", () => {
    expect(windowByBudget(turns, 10)).toEqual({ messages: [], dropped: 2 });
  });
});

describe("classify", () => {
  const apiError = (status: number | undefined, type: string, headers: Record<string, string> = {}, message = "x") =>
    new APIError(status as number, { type: "error", error: { type, message } }, message, new Headers(headers), type as never);

  it("maps the API's failures to pipeline:error codes", () => {
    expect(classify(apiError(429, "rate_limit_error", { "retry-after": "3" }))).toMatchObject({ code: "rate_limited", retryable: true, retryAfterMs: 3000 });
    expect(classify(apiError(529, "overloaded_error"))).toMatchObject({ code: "overloaded", retryable: true });
    expect(classify(apiError(undefined, "overloaded_error"))).toMatchObject({ code: "overloaded" }); // mid-stream event
    expect(classify(apiError(500, "api_error"))).toMatchObject({ code: "upstream_error", retryable: true });
    expect(classify(apiError(400, "invalid_request_error", {}, "prompt is too long: 300000 tokens"))).toMatchObject({
      code: "invalid_request",
      retryable: false,
      promptTooLong: true,
    });
    expect(classify(new CutStreamError("cut"))).toMatchObject({ code: "upstream_error", retryable: true });
    expect(classify(new TypeError("terminated"), undefined, true)).toMatchObject({ code: "upstream_error" });
    expect(classify(new TypeError("a bug"))).toMatchObject({ code: "internal", retryable: false });
  });

  it("tells a stop from a timeout by the abort reason", () => {
    const stop = new AbortController();
    stop.abort(ABORT_STOP);
    const late = new AbortController();
    late.abort(ABORT_TIMEOUT);
    expect(classify(new Error("aborted"), stop.signal)).toMatchObject({ code: "aborted", retryable: false });
    expect(classify(new Error("aborted"), late.signal)).toMatchObject({ code: "timeout", retryable: true });
  });
});
