import Anthropic from "@anthropic-ai/sdk";
import { numberVar, type Env } from "../env";
import { Invoker } from "./invoke";
import { offlineFetch } from "./offline";

export type Provider = "anthropic" | "offline";

export function providerOf(env: Env): Provider {
  return env.ANTHROPIC_API_KEY ? "anthropic" : "offline";
}

export function runTimeoutMs(env: Env): number {
  return numberVar(env.RUN_TIMEOUT_MS, 300_000);
}

/** The invoker for this deployment: real Claude with a key, the offline model without one. */
export function createInvoker(env: Env): Invoker {
  const client =
    providerOf(env) === "anthropic"
      ? new Anthropic({
          apiKey: env.ANTHROPIC_API_KEY,
          baseURL: env.ANTHROPIC_BASE_URL || undefined,
          maxRetries: 0, // the invoker retries itself: it knows whether tokens already reached the user
          timeout: runTimeoutMs(env),
        })
      : new Anthropic({ apiKey: "offline", baseURL: "http://offline.invalid", fetch: offlineFetch, maxRetries: 0 });
  const offline = providerOf(env) === "offline";
  return new Invoker(client, {
    maxTokens: numberVar(env.MAX_OUTPUT_TOKENS, 8192),
    thinking: offline ? null : thinkingConfig(env.THINKING),
    maxToolTurns: numberVar(env.MAX_TOOL_TURNS, 8),
    retryAttempts: numberVar(env.RETRY_MAX_ATTEMPTS, 4),
    retryBaseMs: numberVar(env.RETRY_BASE_MS, 500),
  });
}

/** THINKING: "adaptive" (the model decides how much to think), "off", or a fixed token budget. */
export function thinkingConfig(value: string | undefined): Anthropic.ThinkingConfigParam | null {
  const v = (value ?? "adaptive").trim().toLowerCase();
  if (v === "off" || v === "0" || v === "none") return null;
  const budget = Number(v);
  if (Number.isFinite(budget) && budget > 0) return { type: "enabled", budget_tokens: Math.max(1024, budget) };
  return { type: "adaptive", display: "summarized" };
}
