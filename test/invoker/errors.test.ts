import { APIError } from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { ABORT_STOP, ABORT_TIMEOUT, classify, CutStreamError } from "../../worker/invoker/errors";

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
