// A run's reservations against the daily spend cap (thread/spend.ts): before each model request, the
// most that request can cost, so that runs started at once, tool rounds and all, pass the cap by at
// most one request's cost in all. With no cap set, SpendGuard asks nothing.
import { RunError } from "../../invoker/errors";
import { costUsd } from "../../invoker/prices";
import { emptyUsage } from "../../invoker/types";
import type { RunInfo } from "../../plugins/contract";
import type { RunParts } from "./parts";

/** The system prompt and the tools' definitions, which the estimate of the messages leaves out. */
const PROMPT_ALLOWANCE_TOKENS = 8_000;

/** A request's messages in tokens, roughly (4 characters a token; an image counts as its base64). */
export const messagesTokens = (messages: unknown[]): number => Math.ceil(JSON.stringify(messages).length / 4);

/** Reserves what a request of about `inputTokens` can cost at most; a refusal is the run's RunError. */
export async function reserveRequest(parts: Pick<RunParts, "spend" | "invoker" | "config">, run: RunInfo, inputTokens: () => number): Promise<void> {
  const worst = async () => {
    const model = await parts.invoker.modelInfo(run.model);
    const input = Math.min(run.contextWindow, inputTokens() + PROMPT_ALLOWANCE_TOKENS);
    return costUsd(run.model, { ...emptyUsage(), inputTokens: input, outputTokens: Math.min(parts.config.maxOutputTokens, model.maxOutputTokens) });
  };
  const refusal = await parts.spend.reserve(run.ownerId, { runId: run.runId, threadId: run.threadId }, worst);
  if (refusal) throw new RunError("rate_limited", refusal.message, refusal.code !== "rate_limited");
}
