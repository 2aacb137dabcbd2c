// A client's conversation as the thread takes it. Clients of the compatible endpoints send the whole
// conversation every turn; it becomes the thread's instructions (the system messages), its history
// (up to and with the last assistant message) and the message to answer (the user's messages after it).
// A conversation's fingerprint is what lets the next turn find the thread (user/api-access/conversations.ts):
// each message's role and text, with whitespace evened out, since clients trim or re-wrap what they
// got back.
import { MAX_CONTENT_CHARS, MAX_INSTRUCTIONS_CHARS } from "../../../protocol";
import { sha256Hex } from "../../lib/sha256";
import type { HistoryTurn } from "../../thread";
import { ApiError } from "../errors";

export interface ClientMessage {
  role: "system" | "user" | "assistant";
  text: string;
}

export interface Conversation {
  /** The system messages, joined (undefined: the client sent none). */
  instructions?: string;
  history: HistoryTurn[];
  /** The user's messages after the last assistant message, joined: what the thread answers now. */
  prompt: string;
}

/** Consecutive messages of a role are one turn (as the Messages API merges them). */
function merged(messages: ClientMessage[]): HistoryTurn[] {
  const turns: HistoryTurn[] = [];
  for (const m of messages) {
    if (m.role === "system" || !m.text.trim()) continue;
    const last = turns.at(-1);
    if (last?.role === m.role) last.content += `\n\n${m.text}`;
    else turns.push({ role: m.role, content: m.text });
  }
  return turns;
}

export function conversationOf(messages: ClientMessage[], system?: string): Conversation {
  const systems = [...(system?.trim() ? [system] : []), ...messages.filter((m) => m.role === "system").map((m) => m.text)];
  const turns = merged(messages);
  const last = turns.at(-1);
  if (!last || last.role !== "user") {
    throw new ApiError("invalid_request", "messages must end with a user message with text", { issues: [{ path: "messages", message: "the last message must be the user's", code: "invalid_value" }] });
  }
  if (last.content.length > MAX_CONTENT_CHARS) throw new ApiError("too_large", `The last user message is limited to ${MAX_CONTENT_CHARS} characters`);
  const instructions = systems.join("\n\n");
  if (instructions.length > MAX_INSTRUCTIONS_CHARS) throw new ApiError("too_large", `The system message is limited to ${MAX_INSTRUCTIONS_CHARS} characters`);
  return { ...(systems.length ? { instructions } : {}), history: turns.slice(0, -1), prompt: last.content };
}

const even = (text: string) => text.trim().replace(/\s+/g, " ");

/** The fingerprint of a conversation's turns (hex SHA-256); null for none (nothing to continue). */
export async function fingerprintOf(turns: HistoryTurn[]): Promise<string | null> {
  if (turns.length === 0) return null;
  return sha256Hex(JSON.stringify(turns.map((t) => [t.role, even(t.content)])));
}
