// OpenAI's Chat Completions, answered by the orchestrator (PROTOCOL.md): `POST /v1/chat/completions`,
// streaming (server-sent chunks, `data: [DONE]`) or not, with usage; `GET /v1/models`. Each request
// runs the full pipeline in its thread (thread-ask.ts); errors leave in OpenAI's shape (errors.ts).
import { Hono, type Context } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { THREAD_ID_HEADER, type Usage } from "../../../protocol";
import { configOf } from "../../env";
import { deploymentModels } from "../../invoker/client";
import type { AppEnv } from "../app-env";
import { ApiError } from "../errors";
import { apiSession } from "../key-auth";
import { conversationOf, type ClientMessage } from "./conversation";
import { anthropicModels } from "./anthropic";
import { anthropicError, openAiError, openAiErrorBody } from "./errors";
import { checkV1Model, refuseTools, textOf, threadHeaders, v1Body, v1BodyLimit } from "./request";
import type { RunOutcome } from "./run-answer";
import { askFromRequest } from "./thread-ask";
import { runError } from "./run-error";

const part = z.looseObject({ type: z.string(), text: z.string().optional() });
const message = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
  content: z.union([z.string(), z.array(part)]).nullable().optional(),
  tool_calls: z.array(z.unknown()).optional(),
});
const body = z.looseObject({
  model: z.string().min(1).max(200),
  messages: z.array(message).min(1, "must not be empty").max(10_000),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  n: z.number().int().nullable().optional(),
  tools: z.array(z.unknown()).nullable().optional(),
  functions: z.array(z.unknown()).nullable().optional(),
});

type Body = z.output<typeof body>;

/** OpenAI's roles as the conversation takes them: a developer message is a system message. */
function clientMessages(b: Body): ClientMessage[] {
  return b.messages.map((m, i) => {
    if (m.role === "tool" || m.role === "function" || m.tool_calls?.length) refuseTools(true);
    const role = m.role === "developer" ? "system" : (m.role as ClientMessage["role"]);
    return { role, text: textOf(m.content, `messages.${i}.content`) };
  });
}

const FINISH: Record<string, string> = { end_turn: "stop", stop_sequence: "stop", max_tokens: "length", refusal: "content_filter", model_context_window_exceeded: "length" };
const finishOf = (o: RunOutcome) => (o.status === "completed" ? (FINISH[o.stopReason ?? ""] ?? "stop") : "stop");

function usageOf(u: Usage | null) {
  const prompt = u ? u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens : 0;
  const completion = u?.outputTokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: u?.cacheReadTokens ?? 0 } };
}

const usageIn = (o: RunOutcome) => (o.status === "waiting" ? null : o.usage);

async function completions(c: Context<AppEnv>) {
  const b = await v1Body(c, body);
  refuseTools(Boolean(b.tools?.length || b.functions?.length));
  if ((b.n ?? 1) !== 1) throw new ApiError("invalid_request", "n must be 1: a thread gives one answer", { issues: [{ path: "n", message: "must be 1", code: "invalid_value" }] });
  const conversation = conversationOf(clientMessages(b));
  await checkV1Model(c.env, b.model);
  const asked = await askFromRequest(c, { conversation, model: b.model, source: "api", ...threadHeaders(c) });
  c.header(THREAD_ID_HEADER, asked.threadId);
  const id = `chatcmpl-${asked.threadId}-${Date.now().toString(36)}`;
  const created = Math.floor(Date.now() / 1000);
  const { answer } = asked;

  if (!b.stream) {
    for await (const _ of answer.pieces());
    const failure = runError(answer.outcome, answer.text);
    if (failure) throw failure;
    await asked.remember();
    return c.json({
      id,
      object: "chat.completion",
      created,
      model: b.model,
      choices: [{ index: 0, message: { role: "assistant", content: answer.text, refusal: null }, finish_reason: finishOf(answer.outcome), logprobs: null }],
      usage: usageOf(usageIn(answer.outcome)),
    });
  }

  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({ id, object: "chat.completion.chunk", created, model: b.model, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
  return streamSSE(c, async (sse) => {
    const send = (data: unknown) => sse.writeSSE({ data: JSON.stringify(data) });
    await send(chunk({ role: "assistant", content: "" }, null));
    for await (const piece of answer.pieces()) await send(chunk({ content: piece }, null));
    const failure = runError(answer.outcome, answer.text);
    if (failure) {
      // OpenAI's streams end a failure with an error object (its SDK throws it).
      await send(openAiErrorBody(failure));
      return;
    }
    await asked.remember();
    await send(chunk({}, finishOf(answer.outcome)));
    if (b.stream_options?.include_usage) await send({ id, object: "chat.completion.chunk", created, model: b.model, choices: [], usage: usageOf(usageIn(answer.outcome)) });
    await sse.writeSSE({ data: "[DONE]" });
  });
}

/** OpenAI's list of models; a client that speaks Anthropic's API (its version header) gets that API's. */
async function models(c: Context<AppEnv>) {
  await apiSession(c);
  const list = await deploymentModels(c.env, configOf(c.env));
  if (c.req.header("anthropic-version")) return c.json(anthropicModels(list));
  return c.json({ object: "list", data: list.map((m) => ({ id: m.id, object: "model", created: 0, owned_by: "anthropic" })) });
}

export const openAiRoutes = new Hono<AppEnv>().post("/chat/completions", v1BodyLimit, completions).get("/models", models);
// GET /v1/models is both APIs' route: its errors take the shape of the API the client speaks.
openAiRoutes.onError((err, c) => (c.req.header("anthropic-version") && c.req.method === "GET" ? anthropicError(err, c) : openAiError(err, c)));
