// One request's parameters, from the conversation and the model's catalog entry: the system blocks
// (a breakpoint on the first, the stable one), a moving cache breakpoint on the last turn of the
// history, thinking as the model takes it, and the compaction edit where it is on.
import type Anthropic from "@anthropic-ai/sdk";
import type { ModelInfo } from "../../protocol";
import { normalizeConversation } from "./conversation";
import { isCompaction, type ApiContent, type ApiMessage, type ModelTool } from "./types";

export const COMPACTION_BETA = "compact-2026-01-12";

export interface RequestSpec {
  model: string;
  /** Most stable first. */
  system: readonly string[];
  /** The whole conversation of this request, prepared (attachments' bytes in). */
  messages: ApiMessage[];
  /** How many of `messages` are the history (the breakpoint goes on the last of them). */
  historyLength: number;
  tools: ModelTool[];
  /** Past the tool turn limit: the model must answer in words. */
  toolsOff: boolean;
  thinking: Anthropic.ThinkingConfigParam | null;
  maxTokens: number;
  /** Compaction's trigger in input tokens, or null when compaction is off for this request. */
  compactAt: number | null;
  /** The code execution container to run in (its files and variables), or null for a new one. */
  container: string | null;
}

/** Thinking as `setting` (THINKING) asks and as the model accepts it; null where it takes neither. */
export function thinkingFor(model: ModelInfo, setting: string, maxTokens: number): Anthropic.ThinkingConfigParam | null {
  if (setting === "off" || setting === "0" || setting === "none") return null;
  const budget = Number(setting);
  const enabled = (tokens: number): Anthropic.ThinkingConfigParam => ({ type: "enabled", budget_tokens: Math.max(1024, Math.min(tokens, maxTokens - 1024)) });
  if (Number.isFinite(budget) && budget > 0) {
    if (model.thinking.includes("enabled")) return enabled(budget);
    return model.thinking.includes("adaptive") ? { type: "adaptive", display: "summarized" } : null;
  }
  if (model.thinking.includes("adaptive")) return { type: "adaptive", display: "summarized" };
  return model.thinking.includes("enabled") && maxTokens > 2048 ? enabled(Math.floor(maxTokens / 2)) : null;
}

/** Blocks that may carry cache_control (thinking blocks may not). */
const CACHEABLE = new Set(["text", "image", "document", "tool_use", "tool_result", "compaction"]);

/** A copy of `message` with a cache breakpoint on its last block that takes one. */
export function withBreakpoint(message: ApiMessage): ApiMessage {
  if (typeof message.content === "string") {
    return { ...message, content: [{ type: "text", text: message.content, cache_control: { type: "ephemeral" } }] };
  }
  const at = message.content.findLastIndex((b) => CACHEABLE.has(b.type));
  if (at < 0) return message;
  const content = message.content.map((b, i) => (i === at ? ({ ...b, cache_control: { type: "ephemeral" } } as ApiContent) : b));
  return { ...message, content };
}

/** With compaction off, a stored compaction block goes as the summary text it holds. */
function summaryInstead(messages: ApiMessage[]): ApiMessage[] {
  return messages.map((m) => {
    if (typeof m.content === "string" || !m.content.some(isCompaction)) return m;
    const content = m.content.flatMap((b): ApiContent[] => {
      if (!isCompaction(b)) return [b];
      return b.content ? [{ type: "text", text: `[Summary of the earlier conversation]\n${b.content}` }] : [];
    });
    return { ...m, content };
  });
}

export function buildParams(spec: RequestSpec): Anthropic.MessageCreateParamsStreaming & Record<string, unknown> {
  const conversation = spec.compactAt === null ? summaryInstead(spec.messages) : spec.messages;
  const history = normalizeConversation(conversation.slice(0, spec.historyLength));
  const messages = normalizeConversation(conversation);
  // The last history turn carries the moving breakpoint, unless the new turn merged into it.
  const at = history.length - 1;
  if (at >= 0 && messages[at]?.role === history[at].role && messages.length > history.length) messages[at] = withBreakpoint(messages[at]);
  const params: Anthropic.MessageCreateParamsStreaming & Record<string, unknown> = {
    model: spec.model,
    max_tokens: spec.maxTokens,
    messages: messages as Anthropic.MessageParam[],
    stream: true,
  };
  // A breakpoint on the stable block: when a later block changes (a rename), the history's breakpoint
  // misses, and the API finds this one's entry by looking back over the block boundaries.
  const system = spec.system.filter((text) => text.length > 0);
  if (system.length) params.system = system.map((text, i) => (i === 0 ? { type: "text", text, cache_control: { type: "ephemeral" } } : { type: "text", text }));
  if (spec.tools.length) {
    params.tools = spec.tools;
    if (spec.toolsOff) params.tool_choice = { type: "none" };
  }
  if (spec.thinking) params.thinking = spec.thinking;
  if (spec.container) params.container = spec.container;
  if (spec.compactAt !== null) {
    params.context_management = { edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: spec.compactAt } }] };
    params.betas = [COMPACTION_BETA];
  }
  return params;
}

/**
 * The API's answer to a request that names a container that expired or is unknown: the request goes
 * again without it, and a new container takes its place.
 */
export function containerGone(err: unknown): boolean {
  const e = err as { status?: number; message?: string };
  return (e?.status === 400 || e?.status === 404) && /container/i.test(e.message ?? "") && /expired|not found|no longer/i.test(e.message ?? "");
}

/** A 400 that says the server does not take the compaction beta (a compatible server without it). */
export function refusesCompaction(err: unknown): boolean {
  const e = err as { status?: number; message?: string };
  return e?.status === 400 && /compact|context_management|beta/i.test(e.message ?? "");
}
