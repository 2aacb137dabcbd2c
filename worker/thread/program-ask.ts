// What a program's request brings to a thread (the compatible endpoints, the MCP server's ask): its
// message, and for a new thread the conversation before it, which the client sent and the thread takes
// as its own history: stored as the messages a person reads in the app, and as the turns the model sees
// (resident, as if the thread had answered them itself).
import { estimateTokens } from "../invoker/conversation";
import type { ApiMessage } from "../invoker/types";
import type { RoomStore, ThreadRecord } from "./store";
import { messageRecord } from "./store/messages";
import type { ThreadInit } from "./store/thread-row";
import { userTurn } from "./run/records";
import type { ThreadWriter } from "./writer";

/** A message of a client's conversation, as text (consecutive ones of a role already merged). */
export interface HistoryTurn {
  role: "user" | "assistant";
  content: string;
}

export interface AskInput {
  /** The user's message this request asks the thread to answer. */
  content: string;
  source: "api" | "mcp";
  /** Continue only if the thread is still where the client's conversation left it (its head is this message). */
  ifHead?: string;
  /** The client's system message: the thread's instructions from now on. */
  instructions?: string;
  model?: string;
  /** A new thread, made with the conversation before the message as its history. */
  create?: { init: ThreadInit; history: HistoryTurn[] };
}

const assistantTurn = (text: string): ApiMessage => ({ role: "assistant", content: [{ type: "text", text }] });

/**
 * The history as exchanges: each user message an input message (the branch's nodes) with its answer
 * after it, and both as the exchange's turns. An answer before any question (a client's greeting) is
 * kept for the reader, before the first exchange; the model, whose conversation begins with the user,
 * does not see it. Answers the new head (the last user message), or null for no exchange.
 */
export function importHistory(store: RoomStore, writer: ThreadWriter, t: ThreadRecord, history: HistoryTurn[], source: string): string | null {
  let head: string | null = null;
  for (let i = 0; i < history.length; i++) {
    const turn = history[i];
    const now = writer.clock.now();
    if (turn.role === "assistant") {
      writer.addMessage(messageRecord({ threadId: t.id, role: "assistant", source, content: turn.content, model: t.model, parentId: null, createdAt: now }));
      continue;
    }
    const question = messageRecord({ threadId: t.id, role: "user", source, content: turn.content, parentId: head, input: true, createdAt: now });
    writer.addMessage(question);
    const answer = history[i + 1]?.role === "assistant" ? history[++i].content : null;
    const turns = [userTurn(turn.content)];
    if (answer !== null) {
      writer.addMessage(messageRecord({ threadId: t.id, role: "assistant", source, content: answer, model: t.model, parentId: question.id, createdAt: writer.clock.now() }));
      turns.push(assistantTurn(answer));
    }
    store.turns.put(question.id, turns.map((message) => ({ exchange: question.id, message, tokens: estimateTokens(message) })));
    head = question.id;
  }
  return head;
}
