import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { configOf, type Env } from "../env";
import { ApiError } from "./errors";
import { verifyAccessJwt } from "./access-jwt";

export type AuthVars = { userId: string };

/** Admins change what is global to the deployment (plugins). In `none` mode the one user is. */
export function isAdmin(env: Env, userId: string): boolean {
  const config = configOf(env);
  return config.authMode === "none" || config.adminUsers.has(userId);
}

/** Resolves the caller to a user id, or answers 401. Every /api route sits behind it. */
export const authenticate: MiddlewareHandler<{ Bindings: Env; Variables: AuthVars }> = async (c, next) => {
  const mode = c.env.AUTH_MODE || "none";
  let userId: string | null = null;
  if (mode === "none") {
    userId = "local";
  } else if (mode === "token") {
    const header = c.req.header("authorization") ?? "";
    const token = header.match(/^Bearer\s+(.+)$/i)?.[1] ?? (isWebSocket(c.req.raw) ? c.req.query("token") : undefined);
    userId = token ? userForToken(c.env.AUTH_TOKENS, token) : null;
  } else if (mode === "access") {
    const jwt = c.req.header("cf-access-jwt-assertion") ?? getCookie(c, "CF_Authorization");
    userId = jwt ? await verifyAccessJwt(jwt, c.env).catch(() => null) : null;
  } else {
    throw new ApiError("internal", "Server misconfigured: unknown AUTH_MODE");
  }
  if (!userId) throw new ApiError("unauthorized", "Sign in: a valid token is required");
  c.set("userId", userId);
  await next();
};

function isWebSocket(req: Request): boolean {
  return req.headers.get("upgrade")?.toLowerCase() === "websocket";
}

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
