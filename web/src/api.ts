// The HTTP client, typed from protocol's route map (`Api`): `request("GET /api/threads/:id",
// { params: { id } })` compiles only with the params, query and body that route takes, and answers
// its response type. Every non-2xx answer becomes an ApiError carrying the protocol's error body.

import type { ApiErrorBody, ApiErrorCode, ApiIssue, BodyOf, QueryOf, ResponseOf, Route } from "@protocol";

// ---------- Types from the route map ----------

type PathOf<R extends string> = R extends `${string} ${infer P}` ? P : never;
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<Rest>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;
type IsNever<T> = [T] extends [never] ? true : false;

export type RequestOptions<R extends Route> = (IsNever<ParamNames<PathOf<R>>> extends true
  ? { params?: never }
  : { params: Record<ParamNames<PathOf<R>>, string> }) &
  (IsNever<BodyOf<R>> extends true ? { body?: never } : { body: BodyOf<R> }) &
  (IsNever<QueryOf<R>> extends true ? { query?: never } : {} extends QueryOf<R> ? { query?: QueryOf<R> } : { query: QueryOf<R> }) & {
    signal?: AbortSignal;
  };

/** The options argument may be left out when the route needs none of them. */
type OptionsArg<R extends Route> = {} extends RequestOptions<R> ? [options?: RequestOptions<R>] : [options: RequestOptions<R>];

// ---------- Auth token (AUTH_MODE=token) ----------

// The token lives in memory here; the app decides where it is kept.
let token: string | null = null;
const unauthorizedListeners = new Set<() => void>();

export function setAuthToken(value: string | null): void {
  token = value;
}

export const authToken = (): string | null => token;

/** Called whenever the API answers 401: the app shows its sign-in form. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

// ---------- Errors ----------

/** Codes for failures that carry no protocol error body. */
export type ClientErrorCode = "network" | "unexpected_response";

export class ApiError extends Error {
  readonly status: number;
  readonly code: ApiErrorCode | ClientErrorCode;
  readonly issues?: ApiIssue[];
  /** Seconds, from a 429's Retry-After. */
  readonly retryAfter?: number;

  constructor(status: number, code: ApiErrorCode | ClientErrorCode, message: string, issues?: ApiIssue[], retryAfter?: number) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.issues = issues;
    this.retryAfter = retryAfter;
  }

  /** A network failure, a 5xx, a 408 or a 429: the same request may succeed later. */
  get transient(): boolean {
    return this.status === 0 || this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

function isErrorBody(value: unknown): value is ApiErrorBody {
  const error = (value as ApiErrorBody | null)?.error;
  return typeof error === "object" && error !== null && typeof error.code === "string";
}

// ---------- The request ----------

/** `:path` is a context file's path (the server's `:path+`): its slashes stay, its segments are encoded. */
function fillPath(template: string, params: Record<string, string> = {}): string {
  return template.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name] ?? "";
    return name === "path" ? value.split("/").map(encodeURIComponent).join("/") : encodeURIComponent(value);
  });
}

function queryString(query: object | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `?${qs}` : "";
}

/** The URL of a route with its params and query filled in (for requests `request()` cannot make). */
export function routeUrl<R extends Route>(route: R, ...[options]: OptionsArg<R>): string {
  const opts = (options ?? {}) as { params?: Record<string, string>; query?: object };
  return fillPath(route.split(" ")[1], opts.params) + queryString(opts.query);
}

/** The Authorization header of token mode (empty otherwise). */
export function authHeaders(): Record<string, string> {
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/**
 * The ApiError for a non-2xx answer, from its status, its parsed body (undefined when not JSON) and
 * its Retry-After header. A 401 tells the app's listeners (the sign-in form shows).
 */
export function apiErrorOf(status: number, body: unknown, retryAfterHeader: string | null): ApiError {
  if (status === 401) unauthorizedListeners.forEach((l) => l());
  if (!isErrorBody(body)) return new ApiError(status, "unexpected_response", `Request failed (${status})`);
  const retryAfter = Number(retryAfterHeader ?? NaN);
  const { code, message, issues } = body.error;
  return new ApiError(status, code, message, issues, Number.isFinite(retryAfter) ? retryAfter : undefined);
}

/** What a redirect to a sign-in page means to the app: a 401 (its listeners show sign-in). */
const signInEnded = () =>
  apiErrorOf(401, { error: { code: "unauthorized", message: "Your sign-in has ended: sign in again." } }, null);

export const networkError = () => new ApiError(0, "network", "Network error: the server could not be reached.");

export async function request<R extends Route>(route: R, ...[options]: OptionsArg<R>): Promise<ResponseOf<R>> {
  const opts = (options ?? {}) as { body?: unknown; signal?: AbortSignal };
  const method = route.split(" ")[0];
  const headers: Record<string, string> = { Accept: "application/json", ...authHeaders() };
  if (opts.body !== undefined) headers["Content-Type"] = "application/json";

  let res: Response;
  try {
    res = await fetch(routeUrl(route, ...([options] as OptionsArg<R>)), {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal,
      // The API never redirects; Cloudflare Access does, to its sign-in page, once its session has
      // ended. Followed, that is a cross-origin request the CSP refuses: a "network error" forever.
      redirect: "manual",
    });
  } catch (err) {
    if ((err as Error)?.name === "AbortError") throw err;
    throw networkError();
  }
  if (res.type === "opaqueredirect") throw signInEnded();
  if (res.status === 204) return null as ResponseOf<R>;
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    json = undefined;
  }
  if (res.ok) {
    if (json === undefined) throw new ApiError(res.status, "unexpected_response", `The server's answer to ${route} was not JSON.`);
    return json as ResponseOf<R>;
  }
  throw apiErrorOf(res.status, json, res.headers.get("Retry-After"));
}

/**
 * A thread's WebSocket URL: a one-use ticket from POST /api/ws-ticket (never the token: a URL ends up
 * in logs and history) and `since`, the last seq this page has seen.
 */
export function threadSocketUrl(threadId: string, ticket: string, since: number | null): string {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const params = new URLSearchParams({ ticket });
  if (since !== null) params.set("since", String(since));
  return `${proto}//${location.host}/api/threads/${encodeURIComponent(threadId)}/ws?${params}`;
}

/** Human text for an error of any kind. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) return err.message || err.code;
  if (err instanceof Error) return err.message;
  return String(err);
}
