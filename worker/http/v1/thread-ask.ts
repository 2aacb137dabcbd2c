// One request of a program, to its thread (PROTOCOL.md, "API keys and compatible endpoints"): the thread
// X-Thread-Id names (its last user message alone is asked), else the API thread whose conversation the
// request's earlier messages are, else a new API thread with them as its history. On the compatible
// endpoints the key's check and the search for that thread are one call to the user's object
// (key-auth.ts), then one call goes to the thread's.
import type { Context } from "hono";
import { configOf, type Env } from "../../env";
import { newId } from "../../lib/ids";
import { hintFrom } from "../../lib/placement";
import type { AskInput } from "../../thread";
import { userStub } from "../../user/stub";
import { fromRoom, roomStub, type AppEnv } from "../app-env";
import { ApiError } from "../errors";
import { apiSession, type ApiSession } from "../key-auth";
import { underLimit } from "../rate-limit";
import { fingerprintOf, type Conversation } from "./conversation";
import { RunAnswer, threadUrl } from "./run-answer";

export interface AskRequest {
  conversation: Conversation;
  model: string;
  source: AskInput["source"];
  /** X-Thread-Id: the thread to continue, whatever the conversation says. */
  threadId?: string;
  /** X-Project-Id: a new thread's project. */
  projectId?: string;
  /** How long the program waits for the run's end (the run's timeout by default). */
  waitMs?: number;
}

/** Where a request came from: what the thread's answer and a new thread's placement need of it. */
export interface AskOrigin {
  env: Env;
  requestId: string;
  request: Request;
}

export interface Asked {
  threadId: string;
  answer: RunAnswer;
  /** Once the answer is whole: the next turn's earlier messages will find this thread. */
  remember(): Promise<void>;
}

const NAME_CHARS = 80;

/** A new thread's name: its first question's first line (a title may rename it after its first run). */
const nameOf = (c: Conversation) => (c.history.find((t) => t.role === "user")?.content ?? c.prompt).trim().split("\n")[0].slice(0, NAME_CHARS) || "API conversation";

/** A compatible endpoint's request: its key checked and its thread found in one call, then asked. */
export async function askFromRequest(c: Context<AppEnv>, req: AskRequest): Promise<Asked> {
  const fingerprint = req.threadId ? null : await fingerprintOf(req.conversation.history);
  const session = await apiSession(c, { fingerprint, projectId: req.projectId });
  return askThread({ env: c.env, requestId: c.var.requestId, request: c.req.raw }, session, req);
}

export async function askThread(from: AskOrigin, session: ApiSession, req: AskRequest): Promise<Asked> {
  const started = Date.now();
  const { env } = from;
  const { conversation: conv, source } = req;
  if (!session.projectFound) throw new ApiError("not_found", "No such project (X-Project-Id)");
  const input: AskInput = { content: conv.prompt, source, model: req.model, ...(conv.instructions !== undefined ? { instructions: conv.instructions } : {}) };
  const who = (threadId: string) => ({ threadId, userId: session.userId, requestId: from.requestId });

  let threadId = req.threadId ?? session.continuation?.threadId ?? null;
  let asked = threadId ? await roomStub(env, threadId).ask(who(threadId), req.threadId ? input : { ...input, ifHead: session.continuation!.headId }) : null;
  // The conversation's thread moved on (a person wrote in it) or is gone: it starts a thread of its own.
  if (asked && !req.threadId && !asked.ok && (asked.error.code === "conflict" || asked.error.code === "not_found")) asked = null;
  if (!asked) {
    await underLimit(env, "THREAD_LIMITER", session.userId, "new threads");
    threadId = newId("thr");
    const init = { name: nameOf(conv), named: false, kind: "api" as const, model: req.model, ...(req.projectId ? { projectId: req.projectId } : {}) };
    asked = await roomStub(env, threadId, hintFrom(env, from.request)).ask(who(threadId), { ...input, create: { init, history: conv.history } });
  }
  const { message, events } = fromRoom(asked);
  const id = threadId!;
  const deadline = started + (req.waitMs ?? configOf(env).runTimeoutMs);
  const answer = new RunAnswer(events, deadline, threadUrl(new URL(from.request.url).origin, id));
  return {
    threadId: id,
    answer,
    remember: async () => {
      if (answer.outcome.status !== "completed") return;
      const turns = [...conv.history, { role: "user" as const, content: conv.prompt }, { role: "assistant" as const, content: answer.text }];
      const key = await fingerprintOf(turns);
      if (key) await userStub(env, session.userId).rememberApiConversation(id, key, message.id);
    },
  };
}
