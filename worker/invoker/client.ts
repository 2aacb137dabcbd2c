import Anthropic from "@anthropic-ai/sdk";
import type { Config, Env } from "../env";
import { Invoker } from "./invoke";
import { offlineFetch } from "./offline";

export type Provider = "anthropic" | "offline";

export function providerOf(env: Env): Provider {
  return env.ANTHROPIC_API_KEY ? "anthropic" : "offline";
}

/** The invoker for this deployment: real Claude with a key, the offline model without one. */
export function createInvoker(env: Env, config: Config): Invoker {
  const offline = providerOf(env) === "offline";
  const client = offline
    ? new Anthropic({ apiKey: "offline", baseURL: "http://offline.invalid", fetch: offlineFetch, maxRetries: 0 })
    : new Anthropic({
        apiKey: env.ANTHROPIC_API_KEY,
        baseURL: env.ANTHROPIC_BASE_URL || undefined,
        maxRetries: 0, // the invoker retries itself: it knows whether tokens already reached the user
        timeout: config.runTimeoutMs,
      });
  return new Invoker(client, {
    maxTokens: config.maxOutputTokens,
    thinking: offline ? null : thinkingConfig(config.thinking),
    maxToolTurns: config.maxToolTurns,
    retryAttempts: config.retryAttempts,
    retryBaseMs: config.retryBaseMs,
  });
}

/** THINKING: "adaptive" (the model decides how much to think), "off", or a fixed token budget. */
export function thinkingConfig(value: string): Anthropic.ThinkingConfigParam | null {
  if (value === "off" || value === "0" || value === "none") return null;
  const budget = Number(value);
  if (Number.isFinite(budget) && budget > 0) return { type: "enabled", budget_tokens: Math.max(1024, budget) };
  return { type: "adaptive", display: "summarized" };
}
