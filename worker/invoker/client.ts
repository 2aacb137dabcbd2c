import Anthropic from "@anthropic-ai/sdk";
import type { Config, Env } from "../env";
import type { Logger } from "../lib/logger";
import type { ModelInfo } from "../../protocol";
import { catalog } from "./catalog";
import { Invoker } from "./invoke";
import { offlineFetch } from "./offline";
import { directStream } from "./stream-request";

export type Provider = "anthropic" | "offline";

export function providerOf(env: Env): Provider {
  return env.ANTHROPIC_API_KEY ? "anthropic" : "offline";
}

/**
 * The models this deployment offers: the catalog (the Models API, or the built-in list), narrowed to
 * MODELS when it is set. A thread's model must be one of them.
 */
export async function deploymentModels(env: Env, config: Config): Promise<ModelInfo[]> {
  const offline = providerOf(env) === "offline";
  const models = await catalog(offline ? null : apiClient(env, config));
  return config.models ? models.filter((m) => config.models!.includes(m.id)) : models;
}

function apiClient(env: Env, config: Config): Anthropic {
  return new Anthropic({
    apiKey: env.ANTHROPIC_API_KEY,
    baseURL: env.ANTHROPIC_BASE_URL || undefined,
    maxRetries: 0, // the invoker retries itself: it knows whether tokens already reached the user
    timeout: config.runTimeoutMs,
    // No OpenTelemetry here: without a provider the SDK would still build a span and its attributes
    // for every request and stream, on the way to the model.
    openTelemetry: false,
  });
}

/**
 * Deletes uploads from the Files API (a deleted thread's or project's files), each on its own: one the
 * API no longer has is gone already. Without a key there is nothing uploaded.
 */
export async function deleteUploads(env: Env, config: Config, upstreamIds: string[], logger: Logger): Promise<void> {
  if (providerOf(env) === "offline") return;
  const client = apiClient(env, config);
  for (const id of upstreamIds) {
    await client.files.delete(id).catch((err: { status?: number }) => {
      if (err?.status !== 404) logger.warn("an upload could not be deleted from the Files API", { upstreamId: id, error: String(err) });
    });
  }
}

/** The invoker for this deployment: real Claude with a key, the offline model without one. */
export function createInvoker(env: Env, config: Config): Invoker {
  const offline = providerOf(env) === "offline";
  const client = offline
    ? new Anthropic({ apiKey: "offline", baseURL: "http://offline.invalid", fetch: offlineFetch, maxRetries: 0, openTelemetry: false })
    : apiClient(env, config);
  // Called as a plain function: workerd's fetch refuses another `this`.
  const fetcher: typeof fetch = offline ? offlineFetch : (input, init) => fetch(input, init);
  return new Invoker(
    client,
    {
      maxTokens: config.maxOutputTokens,
      // Each request's thinking comes from its model's catalog entry (worker/invoker/request.ts).
      thinking: null,
      maxToolTurns: config.maxToolTurns,
      maxCodeRuns: config.maxCodeRuns,
      retryAttempts: config.retryAttempts,
      retryBaseMs: config.retryBaseMs,
    },
    offline,
    directStream(client, fetcher),
  );
}
