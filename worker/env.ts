import type { ThreadRoom } from "./thread/room";

/** Bindings and configuration of the Worker and of every ThreadRoom (wrangler.toml, secrets). */
export interface Env {
  DB: D1Database;
  THREAD_ROOM: DurableObjectNamespace<ThreadRoom>;
  ASSETS?: Fetcher;
  /** none | token | access */
  AUTH_MODE?: string;
  /** token mode: "token1:userA,token2:userB" (a secret) */
  AUTH_TOKENS?: string;
  /** access mode: the team domain (https://<team>.cloudflareaccess.com) and the application AUD */
  ACCESS_TEAM_DOMAIN?: string;
  ACCESS_AUD?: string;
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  DEFAULT_MODEL?: string;
  /** Per-request model view of the conversation, in estimated tokens. */
  CONTEXT_TOKEN_BUDGET?: string;
  MAX_OUTPUT_TOKENS?: string;
  /** Extended thinking: "adaptive" (default), "off", or a token budget for thinking.type=enabled. */
  THINKING?: string;
  RUN_TIMEOUT_MS?: string;
  /** Messages a thread may hold waiting for (or in) a run; past it, posts answer 429. */
  MAX_QUEUED_MESSAGES?: string;
  RETRY_MAX_ATTEMPTS?: string;
  RETRY_BASE_MS?: string;
  MAX_TOOL_TURNS?: string;
  /** How often coalesced token deltas are flushed to sockets. */
  STREAM_FLUSH_MS?: string;
  HOOK_TIMEOUT_MS?: string;
}

export const VERSION = "0.1.0";

export function numberVar(value: string | undefined, fallback: number): number {
  const n = value === undefined || value === "" ? NaN : Number(value);
  return Number.isFinite(n) ? n : fallback;
}

export function defaultModel(env: Env): string {
  return env.DEFAULT_MODEL || "claude-sonnet-4-6";
}
