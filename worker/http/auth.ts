import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { configOf, type Env } from "../env";
import { ApiError } from "./errors";
import { verifyAccessJwt } from "./access-jwt";

export type AuthVars = {
  userId: string;
  /** When the caller's credential stops being valid (an Access JWT's exp); null: it does not expire. */
  expiresAt: number | null;
  /** A WebSocket opened with a one-use ticket: the thread's object redeems it for the user. */
  ticket: string | null;
  requestId: string;
};

/** Admins change what is global to the deployment (plugins). In `none` mode the one user is. */
export function isAdmin(env: Env, userId: string): boolean {
  const config = configOf(env);
  return config.authMode === "none" || config.adminUsers.has(userId);
}

const WS_ROUTE = /^\/api\/threads\/[^/]+\/ws$/;
const isWebSocket = (req: Request) => req.headers.get("upgrade")?.toLowerCase() === "websocket";
const isLocalHost = (host: string) => ["localhost", "127.0.0.1", "[::1]", "::1"].includes(host) || host.endsWith(".localhost");
const isLoopback = (ip: string) => /^(::ffff:)?127(\.\d{1,3}){3}$/i.test(ip) || ip === "::1" || ip === "0:0:0:0:0:0:0:1";

/**
 * A request from this machine: its address (CF-Connecting-IP, which Cloudflare and wrangler dev set
 * from the connection) is a loopback one. The Host must be local too, so that a page on another
 * name resolving to 127.0.0.1 (DNS rebinding) is not taken for the local app.
 */
const fromThisMachine = (c: Context) => isLoopback(c.req.header("cf-connecting-ip") ?? "") && isLocalHost(new URL(c.req.url).hostname);

/**
 * A request from another site carrying the user's cookie (access mode) must not change anything, nor
 * open a socket: its Origin, when the browser sends one, must be ours. (hono/csrf checks form posts
 * only; a socket and a JSON fetch with credentials need the same answer.)
 */
function checkOrigin(c: Context): void {
  const origin = c.req.header("origin");
  const changes = !/^(GET|HEAD|OPTIONS)$/.test(c.req.method) || isWebSocket(c.req.raw);
  if (changes && origin && origin !== new URL(c.req.url).origin) throw new ApiError("forbidden", "Requests from another site are refused");
}

/** The one user of a deployment with no sign-in (AUTH_MODE none), for a request it may take. */
export const LOCAL_USER = "local";

export function localUser(c: Context): string {
  if (!configOf(c.env).allowAnonymous && !fromThisMachine(c)) {
    throw new ApiError("forbidden", "This deployment has no sign-in (AUTH_MODE is none): set AUTH_MODE to token or access, or ALLOW_ANONYMOUS to true");
  }
  checkOrigin(c); // another site in the same browser must not drive the local app either
  return LOCAL_USER;
}

/** Resolves the caller to a user id, or answers 401. Every /api route sits behind it. */
export const authenticate: MiddlewareHandler<{ Bindings: Env; Variables: AuthVars }> = async (c, next) => {
  const { authMode } = configOf(c.env);
  const wsRoute = WS_ROUTE.test(c.req.path) && isWebSocket(c.req.raw);
  c.set("expiresAt", null);
  c.set("ticket", null);
  const ticket = wsRoute ? c.req.query("ticket") : undefined;
  if (ticket) {
    c.set("ticket", ticket);
    c.set("userId", "");
    if (authMode !== "token") checkOrigin(c);
    return next();
  }
  let userId: string | null = null;
  if (authMode === "none") {
    userId = localUser(c);
  } else if (authMode === "token") {
    const header = c.req.header("authorization") ?? "";
    // A token in a URL ends up in request logs: only the socket route takes one (the web app uses tickets).
    const token = header.match(/^Bearer\s+(.+)$/i)?.[1] ?? (wsRoute ? c.req.query("token") : undefined);
    userId = token ? userForToken(c.env.AUTH_TOKENS, token) : null;
  } else if (authMode === "access") {
    checkOrigin(c);
    const jwt = c.req.header("cf-access-jwt-assertion") ?? getCookie(c, "CF_Authorization");
    const verified = jwt ? await verifyAccessJwt(jwt, c.env).catch(() => null) : null;
    if (verified) c.set("expiresAt", verified.expiresAt);
    userId = verified?.userId ?? null;
  } else {
    throw new ApiError("internal", "Server misconfigured: unknown AUTH_MODE");
  }
  if (!userId) throw new ApiError("unauthorized", "Sign in: a valid token is required");
  c.set("userId", userId);
  await next();
};

/** AUTH_TOKENS is "token:user,token:user"; compared in constant time so tokens can't be probed. */
export function userForToken(config: string | undefined, token: string): string | null {
  let found: string | null = null;
  for (const pair of (config ?? "").split(",")) {
    const at = pair.lastIndexOf(":");
    if (at <= 0) continue;
    if (timingSafeEqual(pair.slice(0, at).trim(), token)) found = pair.slice(at + 1).trim();
  }
  return found;
}

function timingSafeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
