// The models a deployment offers and what each accepts, from the Models API (`client.models.list()`):
// the context window, the largest max_tokens, the thinking types, and the compaction edit. Every
// request is built from its model's entry. Kept per isolate for a day; a built-in list stands in for
// the offline model and for a server that has no models route.
import type Anthropic from "@anthropic-ai/sdk";
import type { ModelInfo } from "../../protocol";

const DAY_MS = 24 * 60 * 60_000;
/** After a failed fetch, the built-in list serves this long before the API is asked again. */
const RETRY_MS = 10 * 60_000;
const FETCH_TIMEOUT_MS = 3_000;

const entry = (
  id: string,
  displayName: string,
  contextWindow: number,
  maxOutputTokens: number,
  thinking: ModelInfo["thinking"],
  compaction: boolean,
  codeExecution: ModelInfo["codeExecution"] = null,
): ModelInfo => ({ id, displayName, contextWindow, maxOutputTokens, thinking, compaction, codeExecution });

/** The current Claude models as last known, used when the Models API cannot be reached. */
export const BUILT_IN_MODELS: ModelInfo[] = [
  entry("claude-sonnet-4-6", "Claude Sonnet 4.6", 200_000, 64_000, ["adaptive", "enabled"], true, "code_execution_20260521"),
  entry("claude-opus-4-6", "Claude Opus 4.6", 200_000, 128_000, ["adaptive", "enabled"], true, "code_execution_20260521"),
  entry("claude-haiku-4-5", "Claude Haiku 4.5", 200_000, 64_000, ["enabled"], false, "code_execution_20250825"),
  entry("claude-sonnet-4-5", "Claude Sonnet 4.5", 200_000, 64_000, ["enabled"], false, "code_execution_20250825"),
  entry("claude-opus-4-5", "Claude Opus 4.5", 200_000, 64_000, ["enabled"], false, "code_execution_20250825"),
];

/** A model the catalog does not list: asked for nothing it might refuse. */
export function unknownModel(id: string): ModelInfo {
  return entry(id, id, 100_000, 8_192, [], false, null);
}

export function fromApi(m: Anthropic.ModelInfo): ModelInfo {
  const caps = m.capabilities;
  const thinking: ModelInfo["thinking"] = [];
  if (caps?.thinking.types.adaptive.supported) thinking.push("adaptive");
  if (caps?.thinking.types.enabled.supported) thinking.push("enabled");
  return {
    id: m.id,
    displayName: m.display_name,
    contextWindow: m.max_input_tokens ?? 200_000,
    maxOutputTokens: m.max_tokens ?? 8_192,
    thinking,
    compaction: caps?.context_management.compact_20260112?.supported ?? false,
    codeExecution: codeExecutionOf(caps),
  };
}

/**
 * The code execution tool's version a model takes, as far as its capabilities say: none without the
 * server tool; the newest (REPL state kept across requests that reuse the container) where code can
 * call the request's other tools, which came with it; else the first version that runs bash.
 */
function codeExecutionOf(caps: Anthropic.ModelInfo["capabilities"] | undefined): ModelInfo["codeExecution"] {
  if (!caps?.server_tools?.code_execution?.supported) return null;
  return caps.code_execution?.supported ? "code_execution_20260521" : "code_execution_20250825";
}

interface Held {
  models: ModelInfo[];
  fetchedAt: number;
  fromApi: boolean;
}

let held: Held | null = null;
let fetching: Promise<Held> | null = null;

async function fetchCatalog(client: Anthropic): Promise<Held> {
  const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  try {
    const models: ModelInfo[] = [];
    for await (const m of client.models.list({ limit: 100 }, { signal })) {
      if (m.lifecycle !== "retired") models.push(fromApi(m));
    }
    return { models: models.length ? models : BUILT_IN_MODELS, fetchedAt: Date.now(), fromApi: models.length > 0 };
  } catch {
    return { models: BUILT_IN_MODELS, fetchedAt: Date.now() - DAY_MS + RETRY_MS, fromApi: false };
  }
}

/**
 * The catalog: fetched on first use (the only time anything waits for it), then served from memory,
 * refreshed in the background once a day. `client` null: the offline model, the built-in list.
 */
export async function catalog(client: Anthropic | null, now = Date.now()): Promise<ModelInfo[]> {
  if (!client) return BUILT_IN_MODELS;
  if (!held) held = await (fetching ??= fetchCatalog(client).finally(() => (fetching = null)));
  else if (now - held.fetchedAt > DAY_MS && !fetching) {
    // A refresh that fails keeps the list the API last gave, and tries again in a while.
    const last = held;
    fetching = fetchCatalog(client)
      .then((h) => (held = h.fromApi || !last.fromApi ? h : { ...last, fetchedAt: h.fetchedAt }))
      .finally(() => (fetching = null));
  }
  return held.models;
}

/** The entry a request is built from. */
export async function modelInfo(client: Anthropic | null, id: string): Promise<ModelInfo> {
  return (await catalog(client)).find((m) => m.id === id) ?? unknownModel(id);
}

/** Tests: forget what this isolate holds. */
export function forgetCatalog(): void {
  held = null;
  fetching = null;
}
