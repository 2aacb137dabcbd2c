import { roundUsd } from "../lib/usd";
import type { Usage } from "./types";

/** US dollars per million tokens, by model family. Cache writes cost 1.25x input, reads 0.1x. */
const PRICES: { match: RegExp; input: number; output: number }[] = [
  { match: /opus-4-[5-9]|opus-[5-9]/, input: 5, output: 25 },
  { match: /opus/, input: 15, output: 75 },
  { match: /sonnet/, input: 3, output: 15 },
  { match: /haiku-4|haiku-[5-9]/, input: 1, output: 5 },
  { match: /haiku/, input: 0.8, output: 4 },
];
const FALLBACK = { input: 3, output: 15 };

export function priceOf(model: string) {
  return PRICES.find((p) => p.match.test(model)) ?? FALLBACK;
}

/** US dollars per web search request ($10 per 1,000); a web fetch costs only the tokens it brings. */
export const WEB_SEARCH_USD = 0.01;
/**
 * US dollars per hour of a code execution container. The API's monthly free hours are the
 * organization's, not a thread's to count: every run pays list price here.
 */
export const CONTAINER_HOUR_USD = 0.05;

export function costUsd(model: string, u: Usage): number {
  const p = priceOf(model);
  const dollars =
    (u.inputTokens * p.input + u.outputTokens * p.output + u.cacheWriteTokens * p.input * 1.25 + u.cacheReadTokens * p.input * 0.1) /
      1_000_000 +
    (u.serverToolUses?.web_search ?? 0) * WEB_SEARCH_USD +
    ((u.containerSeconds ?? 0) / 3600) * CONTAINER_HOUR_USD;
  return roundUsd(dollars);
}
