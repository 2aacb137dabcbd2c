import type { Context, MiddlewareHandler } from "hono";
import { z } from "zod";
import type { BodyOf, Route } from "../../protocol";
import type { AppEnv } from "./app-env";
import { ApiError, zodIssues } from "./errors";

function invalid(error: z.ZodError, message = "Invalid request"): ApiError {
  return new ApiError("invalid_request", message, { issues: zodIssues(error) });
}

/** The routes that take a JSON body in protocol/api.ts. */
type BodyRoute = { [R in Route]: [BodyOf<R>] extends [never] ? never : R }[Route];

// `Same` tells `A & B` from the same fields written out flat, so both sides are flattened first.
type Flat<T> = { [K in keyof T]: T[K] };
// Identical, not assignable both ways: that would pass a field that is optional on one side and absent on the other.
type Same<A, B> = (<G>() => G extends Flat<A> ? 1 : 2) extends (<G>() => G extends Flat<B> ? 1 : 2) ? true : false;

// What the client sends (the schema's input) and what the handler reads (its output) are both the
// protocol's one body type, so a schema's default or transform is a drift too.
type Checked<S extends z.ZodType, Body> =
  Same<z.input<S>, Body> extends true
    ? Same<z.output<S>, Body> extends true
      ? unknown
      : { "the schema's output drifts from the protocol's body": { schema: z.output<S>; protocol: Body } }
    : { "the schema's input drifts from the protocol's body": { schema: z.input<S>; protocol: Body } };

type JsonInput<Body> = { in: { json: Body }; out: { json: Body } };

/** The request's JSON body. An empty body counts as `{}`. */
async function readJson(c: Context): Promise<unknown> {
  const raw = await c.req.text();
  if (raw.trim() === "") return {};
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
    throw new ApiError("unsupported_media_type", "Send the body as application/json");
  }
  try {
    return JSON.parse(raw);
  } catch {
    throw new ApiError("invalid_request", "Malformed JSON body", { issues: [] });
  }
}

/**
 * The body of `route`, checked against `schema` before the handler, which reads it with
 * `c.req.valid("json")`. A schema whose type is not the route's body in protocol/api.ts does not compile.
 * Not `hono/validator`'s "json" target, which reads a body sent under another Content-Type as `{}`
 * (here 415), refuses an empty body sent as JSON (here `{}`) and answers malformed JSON without `issues`.
 */
export function jsonBody<R extends BodyRoute, S extends z.ZodType>(
  _route: R,
  schema: S & Checked<S, BodyOf<R>>,
): MiddlewareHandler<AppEnv, string, JsonInput<BodyOf<R>>> {
  return async (c, next) => {
    const parsed = schema.safeParse(await readJson(c));
    if (!parsed.success) throw invalid(parsed.error);
    c.req.addValidatedData("json", parsed.data as object);
    await next();
  };
}

export function queryParams<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  const parsed = schema.safeParse(c.req.query());
  if (!parsed.success) throw invalid(parsed.error, "Invalid query parameters");
  return parsed.data;
}

export const limitParam = (fallback: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(fallback);
