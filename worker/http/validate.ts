import type { Context } from "hono";
import { z } from "zod";
import { ApiError, zodIssues } from "./errors";

function invalid(error: z.ZodError, message = "Invalid request"): ApiError {
  return new ApiError("invalid_request", message, { issues: zodIssues(error) });
}

/** The request's JSON body, checked against `schema`. An empty body counts as `{}`. */
export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const raw = await c.req.text();
  let value: unknown = {};
  if (raw.trim() !== "") {
    const type = c.req.header("content-type") ?? "";
    if (!/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
      throw new ApiError("unsupported_media_type", "Send the body as application/json");
    }
    try {
      value = JSON.parse(raw);
    } catch {
      throw new ApiError("invalid_request", "Malformed JSON body", { issues: [] });
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalid(parsed.error);
  return parsed.data;
}

export function queryParams<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  const parsed = schema.safeParse(c.req.query());
  if (!parsed.success) throw invalid(parsed.error, "Invalid query parameters");
  return parsed.data;
}

export const limitParam = (fallback: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(fallback);
