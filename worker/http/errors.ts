import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { API_ERROR_STATUS, type ApiErrorCode } from "../../protocol";
import { consoleLogger } from "../lib/logger";

export type ErrorCode = ApiErrorCode;
const STATUS: Record<ErrorCode, ContentfulStatusCode> = API_ERROR_STATUS;

const httpLogger = consoleLogger("http");

/** An error that becomes PROTOCOL.md's error body with its status. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
  get status(): ContentfulStatusCode {
    return STATUS[this.code];
  }
}

export const notFound = (what = "Not found") => new ApiError("not_found", what);

export function zodIssues(error: z.ZodError) {
  return error.issues.map((i) => ({ path: i.path.join("."), message: i.message, code: i.code }));
}

export function errorResponse(c: Context, err: ApiError) {
  return c.json({ error: { code: err.code, message: err.message, ...err.extra } }, err.status, err.headers);
}

/** Any failure as the error it is to a client; internals are logged here and never leave. */
export function toApiError(err: Error, c: Context): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof z.ZodError) return new ApiError("invalid_request", "Invalid request", { issues: zodIssues(err) });
  if (err instanceof HTTPException) {
    const code = (Object.keys(STATUS) as ErrorCode[]).find((k) => STATUS[k] === err.status) ?? "internal";
    return new ApiError(code, err.message || code);
  }
  httpLogger.error("unhandled error", { requestId: c.get("requestId"), method: c.req.method, path: c.req.path, name: err?.name, error: err?.message });
  return new ApiError("internal", "Internal error");
}

/** Hono's onError: every failure leaves in the error shape; internals never leave at all. */
export function handleError(err: Error, c: Context) {
  return errorResponse(c, toApiError(err, c));
}
