// The per-user limit on new threads, per minute, with Cloudflare's rate-limiting binding
// (wrangler.toml's [[ratelimits]]), checked before the thread's object is made; and the per-address
// limit on the share links' public routes, which no user signs in to. Posts (messages, edits,
// regenerations, send frames) are limited by the thread's object, on the path that both POST and the
// socket take (thread/intake.ts).
import type { Context, MiddlewareHandler } from "hono";
import type { Env } from "../env";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";

type Limiter = "THREAD_LIMITER" | "SHARE_LIMITER";

/** The binding's window: a refused caller may try again once it has passed. */
const PERIOD_SEC = 60;

export function rateLimit(binding: Limiter, what: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await checkLimit(c, binding, what);
    await next();
  };
}

/** 429 past the binding's limit (a compatible endpoint's new thread checks it in its handler). */
export async function checkLimit(c: Context<AppEnv>, binding: Limiter, what: string): Promise<void> {
  // Signed in: the user; on a public route: the address the request came from.
  const key = binding === "SHARE_LIMITER" ? (c.req.header("cf-connecting-ip") ?? "unknown") : c.var.userId;
  await underLimit(c.env, binding, key, what);
}

export async function underLimit(env: Env, binding: Limiter, key: string, what: string): Promise<void> {
  const limiter = env[binding];
  if (limiter && !(await limiter.limit({ key })).success) {
    throw new ApiError("rate_limited", `Too many ${what} in a minute; try again shortly`, {}, { "Retry-After": String(PERIOD_SEC) });
  }
}
