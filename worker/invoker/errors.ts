import { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from "@anthropic-ai/sdk";

import type { RunErrorCode } from "../../protocol";

export type { RunErrorCode };

/** Why a run ended early, carried from the invoker up to the pipeline. */
export class RunError extends Error {
  constructor(
    readonly code: RunErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    readonly promptTooLong = false,
  ) {
    super(message);
  }
}

/** Thrown when a stream ends without message_stop: the connection was cut mid-answer. */
export class CutStreamError extends Error {}

export const ABORT_STOP = "stopped";
export const ABORT_TIMEOUT = "timeout";

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get("retry-after-ms"));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const s = headers?.get("retry-after");
  if (!s) return undefined;
  const secs = Number(s);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(s);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

/**
 * Maps whatever the SDK (or the stream) threw to a RunError; `signal` tells stop from timeout.
 * `fromUpstream`: the error came out of reading the model's response (a socket torn down mid-body
 * surfaces as a bare TypeError), so anything unknown is the upstream's fault, not ours.
 */
export function classify(err: unknown, signal?: AbortSignal, fromUpstream = false): RunError {
  if (err instanceof RunError) return err;
  if (signal?.aborted || err instanceof APIUserAbortError) {
    return signal?.reason === ABORT_TIMEOUT
      ? new RunError("timeout", "The model took too long to answer", true)
      : new RunError("aborted", "Stopped", false);
  }
  if (err instanceof APIConnectionTimeoutError) return new RunError("timeout", "The model API timed out", true);
  if (err instanceof APIConnectionError || err instanceof CutStreamError) {
    return new RunError("upstream_error", "The connection to the model API failed", true);
  }
  if (err instanceof APIError) {
    const type = err.type ?? (err.error as { error?: { type?: string } } | undefined)?.error?.type;
    const detail = err.apiMessage ?? err.message;
    if (err.status === 429 || type === "rate_limit_error") {
      return new RunError("rate_limited", "The model API is rate limiting requests", true, retryAfterMs(err.headers));
    }
    if (err.status === 529 || type === "overloaded_error") {
      return new RunError("overloaded", "The model API is overloaded", true, retryAfterMs(err.headers));
    }
    if (err.status === undefined || err.status >= 500 || type === "api_error") {
      return new RunError("upstream_error", `The model API failed: ${detail}`, true, retryAfterMs(err.headers));
    }
    const tooLong = /prompt is too long|too many tokens|context.{0,20}(length|window)/i.test(detail ?? "");
    return new RunError("invalid_request", `The model API refused the request: ${detail}`, false, undefined, tooLong);
  }
  if (fromUpstream) return new RunError("upstream_error", "The model's stream failed", true);
  return new RunError("internal", "Internal error while calling the model", false);
}
