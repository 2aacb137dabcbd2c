import { IMAGE_TOKENS, refOf, refTokens } from "./attachment-refs";
import { filesOf } from "./file-notes";
import type { ApiContent, ApiMessage } from "./types";

/**
 * The Messages API wants alternating roles with non-empty content. A failed or interrupted run can
 * leave two user turns in a row; they are merged rather than dropped, so nothing the user said is lost.
 */
export function normalizeConversation(messages: ApiMessage[]): ApiMessage[] {
  const out: ApiMessage[] = [];
  for (const m of messages) {
    const content = asBlocks(m.content);
    if (content.length === 0) continue;
    const prev = out[out.length - 1];
    if (prev && prev.role === m.role) prev.content = [...(prev.content as ApiContent[]), ...content];
    else out.push({ role: m.role, content });
  }
  return out;
}

function asBlocks(content: ApiMessage["content"]): ApiContent[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  return content.filter((b) => b.type !== "text" || b.text !== "");
}

/** A cheap, deliberately generous token estimate (about 4 characters a token). */
export function estimateTokens(message: ApiMessage): number {
  if (typeof message.content === "string") return Math.ceil(JSON.stringify(message.content).length / 4) + 4;
  const files = message.content.reduce((n, b) => n + (refOf(b) ? refTokens(refOf(b)!) : 0), 0);
  // An image sent inline (an MCP tool's, in its result) costs what an image costs, not its base64's length.
  const inline = filesOf([message]).filter((f) => f.type === "image" && f.source.type === "base64");
  const inlineChars = inline.reduce((n, f) => n + (f.source.data?.length ?? 0), 0);
  return Math.ceil((JSON.stringify(message.content).length - inlineChars) / 4) + 4 + files + inline.length * IMAGE_TOKENS;
}

/** One turn of the conversation, under the exchange (the input message's id) it belongs to. */
export interface StoredTurn {
  exchange: string;
  message: ApiMessage;
  tokens: number;
}

/**
 * The newest whole exchanges that fit in `budget` tokens. An exchange starts with a user's turn and
 * holds every tool_use with its tool_result, so cutting between exchanges never orphans a tool call
 * or edits a thinking block.
 */
export function windowByBudget(turns: StoredTurn[], budget: number): { messages: ApiMessage[]; dropped: number } {
  // Exchanges in the order their turns come (the branch's order); a Map keeps insertion order.
  const totals = new Map<string, number>();
  for (const t of turns) totals.set(t.exchange, (totals.get(t.exchange) ?? 0) + t.tokens);
  const exchanges = [...totals.keys()];
  let used = 0;
  let firstKept = exchanges.length;
  for (let i = exchanges.length - 1; i >= 0; i--) {
    const cost = totals.get(exchanges[i])!;
    if (used + cost > budget) break;
    used += cost;
    firstKept = i;
  }
  const keep = new Set(exchanges.slice(firstKept));
  return { messages: turns.filter((t) => keep.has(t.exchange)).map((t) => t.message), dropped: firstKept };
}
