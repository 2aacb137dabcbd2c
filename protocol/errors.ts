// Every error code a client can meet: the HTTP error body's, pipeline:error's, and the socket's.

export const API_ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media_type: 415,
  /** A document whose bytes are its type but cannot be parsed, or hold past a bound of text (PROTOCOL.md, "Knowledge"). */
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  /** A server the app reached for the user (an MCP server) failed or does not speak its protocol. */
  upstream_error: 502,
  unavailable: 503,
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

export interface ApiIssue {
  path: string;
  message: string;
  code: string;
}

/** The body of every non-2xx answer. */
export interface ApiErrorBody {
  error: { code: ApiErrorCode; message: string; issues?: ApiIssue[] };
}

export const RUN_ERROR_CODES = [
  "aborted",
  "timeout",
  "rate_limited",
  "overloaded",
  "upstream_error",
  "invalid_request",
  "interrupted",
  "internal",
] as const;

/** Why a run ended early (pipeline:error's `code`). */
export type RunErrorCode = (typeof RUN_ERROR_CODES)[number];

/** The `error` frame sent to one socket. */
export type SocketErrorCode = "invalid_frame" | "replay_unavailable" | "unauthorized";
