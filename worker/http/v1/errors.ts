// The compatible endpoints answer errors in their protocol's own shape, with the app's status: OpenAI's
// `{ error: { message, type, code, param } }` on /v1/chat/completions and /v1/models, Anthropic's
// `{ type: "error", error: { type, message } }` on /v1/messages. Each is made from the app's ApiError.
import type { Context } from "hono";
import type { ApiErrorCode } from "../../../protocol";
import { type ApiError, toApiError } from "../errors";

const OPENAI_TYPE: Partial<Record<ApiErrorCode, string>> = {
  unauthorized: "authentication_error",
  forbidden: "permission_error",
  not_found: "invalid_request_error",
  rate_limited: "rate_limit_error",
  internal: "server_error",
  upstream_error: "server_error",
  unavailable: "server_error",
};

const ANTHROPIC_TYPE: Partial<Record<ApiErrorCode, string>> = {
  unauthorized: "authentication_error",
  forbidden: "permission_error",
  not_found: "not_found_error",
  too_large: "request_too_large",
  rate_limited: "rate_limit_error",
  internal: "api_error",
  upstream_error: "api_error",
  unavailable: "overloaded_error",
};

/** OpenAI names a few errors by code; the rest keep the app's. */
function openAiCode(err: ApiError): string {
  if (err.code === "unauthorized") return "invalid_api_key";
  if (err.code === "rate_limited") return "rate_limit_exceeded";
  if (err.extra.model) return "model_not_found";
  return err.code;
}

const paramOf = (err: ApiError): string | null => {
  const issues = err.extra.issues as { path?: string }[] | undefined;
  return issues?.[0]?.path || null;
};

export const openAiErrorBody = (err: ApiError) => ({ error: { message: err.message, type: OPENAI_TYPE[err.code] ?? "invalid_request_error", code: openAiCode(err), param: paramOf(err) } });

export const anthropicErrorBody = (err: ApiError) => ({ type: "error" as const, error: { type: ANTHROPIC_TYPE[err.code] ?? "invalid_request_error", message: err.message } });

export function openAiError(err: Error, c: Context) {
  const e = toApiError(err, c);
  return c.json(openAiErrorBody(e), e.status, e.headers);
}

export function anthropicError(err: Error, c: Context) {
  const e = toApiError(err, c);
  return c.json(anthropicErrorBody(e), e.status, e.headers);
}
