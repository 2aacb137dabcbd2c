import type Anthropic from "@anthropic-ai/sdk";

export type ApiContent = Anthropic.ContentBlockParam;
/** A turn of the conversation (the API's system-role messages are not used: `system` is separate). */
export type ApiMessage = { role: "user" | "assistant"; content: string | ApiContent[] };

/** What the model produced, as it arrives; the pipeline hands these to plugins and sockets. */
export type StreamEvent =
  | { type: "text"; delta: string }
  | { type: "thinking"; delta: string }
  | { type: "tool_call"; toolUseId: string; toolName: string; input: unknown }
  | { type: "tool_result"; toolUseId: string; toolName: string; content: string; isError: boolean };

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

/** A tool as the model sees it: `pluginName__toolName`. */
export interface ModelTool {
  name: string;
  description: string;
  input_schema: Anthropic.Tool.InputSchema;
}

export interface ToolOutcome {
  content: string;
  isError: boolean;
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
}
