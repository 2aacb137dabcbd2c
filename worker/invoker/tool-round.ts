// A tool round of the invoker's loop: the model's tool calls in its turn, run in order, each answered
// with a tool_result (the API refuses a tool_use left without one).
import type Anthropic from "@anthropic-ai/sdk";
import type { InvokeRequest } from "./invoke";
import type { ApiMessage, ResumePoint, StreamEvent, ToolRun } from "./types";

/** Every tool_use gets its tool_result, even past the turn limit: the API refuses orphans. */
export async function runTools(
  runTool: InvokeRequest["runTool"],
  calls: Anthropic.ToolUseBlockParam[],
  lastRound: boolean,
  onEvent: (e: StreamEvent) => void,
  pointAt: (done: Anthropic.ToolResultBlockParam[]) => () => ResumePoint,
  done: Anthropic.ToolResultBlockParam[] = [],
): Promise<Anthropic.ToolResultBlockParam[]> {
  const results = [...done];
  for (const call of calls) {
    const outcome: ToolRun = lastRound
      ? { content: "Tool turn limit reached; answer with what you have.", isError: true }
      : await runTool(call.name, call.input, call.id, pointAt(results));
    onEvent({ type: "tool_result", toolUseId: call.id, toolName: call.name, content: outcome.content, isError: outcome.isError });
    results.push({ type: "tool_result", tool_use_id: call.id, content: resultContent(outcome), is_error: outcome.isError || undefined });
  }
  return results;
}

/**
 * A result's text, with its images after it when it has any (an MCP tool's); a search's passages
 * alone (project__search: the API takes a result of search results and nothing else).
 */
function resultContent(outcome: ToolRun): Anthropic.ToolResultBlockParam["content"] {
  if (outcome.searchResults?.length) return outcome.searchResults;
  if (!outcome.images?.length) return outcome.content;
  return [
    { type: "text", text: outcome.content },
    ...outcome.images.map((i) => ({ type: "image" as const, source: { type: "base64" as const, media_type: i.mediaType as "image/png", data: i.data } })),
  ];
}

/** The tool calls of an assistant turn (none for any other turn). */
export function toolUses(turn: ApiMessage | undefined): Anthropic.ToolUseBlockParam[] {
  if (turn?.role !== "assistant" || !Array.isArray(turn.content)) return [];
  return turn.content.filter((b): b is Anthropic.ToolUseBlockParam => b.type === "tool_use");
}
