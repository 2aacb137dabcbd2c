// The owner's MCP servers' tools in a run: offered beside the plugins' tools (after them, in a stable
// order, so the request's tool definitions stay in the cached prefix), and called through the owner's
// object, which holds the connections and secrets. A call whose tool asks waits for the user first
// (approvals.ts); a declined or expired one goes back to the model as an error result saying so.
import type { CustomTool, ResumePoint, ToolRun } from "../../invoker/types";
import type { McpCallAnswer, McpOffer, McpOfferTool } from "../../lib/mcp-offer";
import type { RunInfo, StructuredPrompt } from "../../plugins/contract";
import { approvedFirst } from "../approvals";
import type { RunParts } from "./parts";

export type OfferedTool = McpOfferTool & { serverId: string };

/** A run's hold on its timeout: waiting for the user does not count against it. */
export interface RunHold {
  pause(): void;
  resume(): void;
}

const UNREACHED: ToolRun = { content: "The tool could not be called just now; try again later.", isError: true };

/** The tools of the servers this thread offers, by the name the model calls. */
export function offeredTools(offers: McpOffer[], off: readonly string[]): Map<string, OfferedTool> {
  const tools = new Map<string, OfferedTool>();
  for (const offer of [...offers].sort((a, b) => a.server.localeCompare(b.server))) {
    if (off.includes(offer.serverId)) continue;
    for (const t of offer.tools) tools.set(t.name, { ...t, serverId: offer.serverId });
  }
  return tools;
}

export function definitions(tools: Map<string, OfferedTool>): CustomTool[] {
  return [...tools.values()].map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema as CustomTool["input_schema"] }));
}

export async function callOffered(
  parts: Pick<RunParts, "approvals" | "user" | "config" | "logger">,
  run: RunInfo,
  tool: OfferedTool,
  input: unknown,
  toolUseId: string,
  keep: () => { point: ResumePoint; prompt: StructuredPrompt },
  signal: AbortSignal,
  hold?: RunHold,
): Promise<ToolRun> {
  const ask = () => approvedFirst(parts, { runId: run.runId, toolUseId, toolName: tool.name, input }, keep, signal, hold);
  const call = async (approved: boolean): Promise<ToolRun | { asksFirst: true }> => {
    try {
      const answer: McpCallAnswer = await parts.user(run.ownerId).mcpCall({ serverId: tool.serverId, tool: tool.tool, input, approved });
      return "asksFirst" in answer ? answer : { content: answer.content, isError: answer.isError, images: answer.images };
    } catch (err) {
      parts.logger.warn("an MCP call could not reach the owner's object", { tool: tool.name, error: String(err) });
      return UNREACHED;
    }
  };
  // The run's offer says whether the tool asks; the owner's object, which reads the setting as the call
  // is made, may say so too (switched to "always" while this run went on).
  const declined = tool.asks ? await ask() : null;
  if (declined) return declined;
  let answer = await call(tool.asks);
  if ("asksFirst" in answer) answer = (await ask()) ?? (await call(true));
  return "asksFirst" in answer ? UNREACHED : answer;
}
