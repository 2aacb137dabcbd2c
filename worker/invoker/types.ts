import type Anthropic from "@anthropic-ai/sdk";

/** The server's summary of the conversation before it: compaction is a beta, so the plain types lack it. */
export type CompactionBlock = Anthropic.Beta.BetaCompactionBlockParam;
export type ApiContent = Anthropic.ContentBlockParam | CompactionBlock;
/** A turn of the conversation (the API's system-role messages are not used: `system` is separate). */
export type ApiMessage = { role: "user" | "assistant"; content: string | ApiContent[] };

import type { StreamEvent, Usage } from "../../protocol";

/** What the model produced, as it arrives (declared with the protocol: it is what clients receive). */
export type { StreamEvent, Usage };

export function isCompaction(b: { readonly type: string }): b is CompactionBlock {
  return b.type === "compaction";
}

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
  if (a.serverToolUses || b.serverToolUses) {
    sum.serverToolUses = { ...a.serverToolUses };
    for (const [tool, n] of Object.entries(b.serverToolUses ?? {})) sum.serverToolUses[tool] = (sum.serverToolUses[tool] ?? 0) + n;
  }
  if (a.containerSeconds || b.containerSeconds) sum.containerSeconds = (a.containerSeconds ?? 0) + (b.containerSeconds ?? 0);
  return sum;
}

/** Token counts as the API reports them, in a message, its final delta or an iteration. */
interface ApiUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** The API's counts as ours; a count it leaves out (null) is `base`'s, or 0. */
export function usageOf(u: ApiUsage, base?: Usage): Usage {
  return {
    inputTokens: u.input_tokens ?? base?.inputTokens ?? 0,
    outputTokens: u.output_tokens ?? base?.outputTokens ?? 0,
    cacheReadTokens: u.cache_read_input_tokens ?? base?.cacheReadTokens ?? 0,
    cacheWriteTokens: u.cache_creation_input_tokens ?? base?.cacheWriteTokens ?? 0,
  };
}

/** A plugin's own tool as the model sees it: `pluginName__toolName`. */
export interface CustomTool {
  name: string;
  description: string;
  input_schema: Anthropic.Tool.InputSchema;
}

/** A tool the Messages API defines, sent as its definition: Anthropic runs web search and fetch; the app runs memory. */
export type BuiltinTool =
  | Anthropic.WebSearchTool20250305
  | Anthropic.WebFetchTool20250910
  | Anthropic.MemoryTool20250818
  | Anthropic.CodeExecutionTool20250825
  | Anthropic.CodeExecutionTool20260120
  | Anthropic.CodeExecutionTool20260521;

export type ModelTool = CustomTool | BuiltinTool;

import type { ToolOutcome } from "../../protocol";
export type { ToolOutcome };

/** What a tool answered the model: its text, and images where the tool gave some (an MCP tool). */
export interface ToolRun extends ToolOutcome {
  images?: { mediaType: string; data: string }[];
  /** Passages the tool found (project__search), sent as search_result blocks the answer can cite. */
  searchResults?: Anthropic.SearchResultBlockParam[];
}

/**
 * Where a run stands when a tool must wait before it runs (the user's approval): the run's turns so
 * far, its last one the model's tool_use turn, and the results of that turn's calls made before it.
 * Kept durable, it lets the run go on after a restart, with no model call open meanwhile.
 */
export interface ResumePoint {
  turns: ApiMessage[];
  output: string;
  usage: Usage;
  toolCalls: number;
  done: Anthropic.ToolResultBlockParam[];
}

/** A code execution container: its id, and when the API said it expires (epoch ms). */
export interface Container {
  id: string;
  expiresAt: number;
}

export interface InvokeResult {
  /** All the text of the run, across tool turns. */
  output: string;
  model: string;
  usage: Usage;
  durationMs: number;
  stopReason: string | null;
  /** The turns this run adds to the conversation, to be stored once the run ends. */
  turns: ApiMessage[];
  toolCalls: number;
  /** Input tokens of the run's first request, as the API counted them (calibrates the estimate). */
  firstInputTokens: number;
  /**
   * The code execution container the run's requests ran in (null: none), and whether the one it
   * was asked to reuse had gone (expired), so a new one took its place.
   */
  container: (Container & { replaced: boolean }) | null;
}
