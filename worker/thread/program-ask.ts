// What a program's request brings to a thread (the compatible endpoints, the MCP server's ask): its
// message, and for a new thread the conversation before it, which the client sent and the thread takes
// as its own history: stored as the messages a person reads in the app, and as the turns the model sees
// (resident, as if the thread had answered them itself). The answer is the run's frames to follow.
import type { Message, Thread } from "../../protocol";
import { estimateTokens } from "../invoker/conversation";
import type { ApiMessage } from "../invoker/types";
import type { Broadcaster } from "./broadcaster";
import type { Intake } from "./intake";
import type { Outflow } from "./outflow";
import { ok, refuse, type Caller, type RoomReply } from "./room-reply";
import { RunFollower } from "./run-follower";
import type { RoomStore, ThreadRecord } from "./store";
import { messageRecord } from "./store/messages";
import { newThreadRecord, publicThread, type ThreadInit } from "./store/thread-row";
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

export type Asked = RoomReply<{ message: Message; thread: Thread; events: ReadableStream<Uint8Array> }>;

interface AskParts {
  store: RoomStore;
  writer: ThreadWriter;
  events: Broadcaster;
  intake: Intake;
  outflow: Outflow;
  waitUntil(p: Promise<unknown>): void;
}

/**
 * A program's message: checked and queued as a person's post is (their rate limit, their spend cap),
 * answered with the frames of the run that answers it (run-follower.ts). A new thread is checked
 * before it is made, so a refused request leaves no thread behind; its thread list gets it after the
 * run has started, not before.
 */
export class ProgramAsk {
  constructor(private readonly parts: AskParts) {}

  /** Makes the thread `input.create` describes, with its history, if its user may post now. */
  async create(who: Caller, input: AskInput & { create: NonNullable<AskInput["create"]> }): Promise<RoomReply<ThreadRecord>> {
    const { store, writer, intake } = this.parts;
    const { init, history } = input.create;
    const fresh = newThreadRecord(who.threadId, who.userId, { ...init, kind: "api", source: input.source }, Date.now());
    const refused = await intake.personChecks(fresh, who.userId, {});
    if (refused) return refused;
    if (store.deleted || store.thread.get()) return refuse("conflict", "This thread already exists");
    return ok(
      store.transaction(() => {
        writer.createThread(fresh);
        const head = importHistory(store, writer, fresh, history, input.source);
        return head ? writer.updateThread({ headId: head }) : fresh;
      }),
    );
  }

  /** The message, to thread `t` (`checked`: its user's checks passed as the thread was made). */
  async ask(t: ThreadRecord, who: Caller, input: AskInput, checked: boolean): Promise<Asked> {
    const { store, writer, events, intake, outflow } = this.parts;
    if (input.ifHead !== undefined && t.headId !== input.ifHead) return refuse("conflict", "This thread has moved on since the conversation's last answer");
    const edits = {
      ...(input.instructions !== undefined && input.instructions !== t.instructions ? { instructions: input.instructions } : {}),
      ...(input.model && input.model !== t.model ? { model: input.model } : {}),
    };
    if (Object.keys(edits).length) events.threadUpdated((t = writer.updateThread(edits)));
    const follower = new RunFollower(events);
    const message = { content: input.content, role: "user" as const, source: input.source, requestId: who.requestId };
    const accepted = checked ? intake.accept(t, message) : await intake.post(t, who.userId, { content: input.content }, who.requestId, input.source);
    if (!accepted.ok) {
      follower.close();
      return accepted;
    }
    follower.follow(accepted.value.message.id);
    if (checked || Object.keys(edits).length) this.parts.waitUntil(outflow.changed(this.parts.waitUntil));
    return ok({ message: accepted.value.message, thread: publicThread(store.thread.get() ?? t), events: follower.stream });
  }
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
