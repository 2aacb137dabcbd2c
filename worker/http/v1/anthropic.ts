// Anthropic's Messages API, answered by the orchestrator (PROTOCOL.md): `POST /v1/messages`, streaming
// (message_start, content_block_*, message_delta, message_stop) or not. Each request runs the full
// pipeline in its thread (thread-ask.ts); the answer is one text block; errors leave in Anthropic's
// shape (errors.ts).
import { Hono, type Context } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { THREAD_ID_HEADER, type ModelInfo, type Usage } from "../../../protocol";
import type { AppEnv } from "../app-env";
import { conversationOf } from "./conversation";
import { anthropicError, anthropicErrorBody } from "./errors";
import { checkV1Model, refuseTools, textOf, threadHeaders, v1Body, v1BodyLimit } from "./request";
import { runError } from "./run-error";
import type { RunOutcome } from "./run-answer";
import { askFromRequest } from "./thread-ask";

const block = z.looseObject({ type: z.string(), text: z.string().optional() });
const content = z.union([z.string(), z.array(block)]);
const body = z.looseObject({
  model: z.string().min(1).max(200),
  max_tokens: z.number().int().positive(),
  messages: z.array(z.looseObject({ role: z.enum(["user", "assistant"]), content })).min(1, "must not be empty").max(10_000),
  system: content.optional(),
  stream: z.boolean().optional(),
  tools: z.array(z.unknown()).optional(),
});

function usageOf(u: Usage | null) {
  return { input_tokens: u?.inputTokens ?? 0, output_tokens: u?.outputTokens ?? 0, cache_creation_input_tokens: u?.cacheWriteTokens ?? 0, cache_read_input_tokens: u?.cacheReadTokens ?? 0 };
}

const stopOf = (o: RunOutcome) => (o.status === "completed" && o.stopReason && o.stopReason !== "tool_use" && o.stopReason !== "pause_turn" ? o.stopReason : "end_turn");
const usageIn = (o: RunOutcome) => (o.status === "waiting" ? null : o.usage);

async function messages(c: Context<AppEnv>) {
  const b = await v1Body(c, body);
  refuseTools(Boolean(b.tools?.length));
  const conversation = conversationOf(
    b.messages.map((m, i) => ({ role: m.role, text: textOf(m.content, `messages.${i}.content`) })),
    b.system === undefined ? undefined : textOf(b.system, "system"),
  );
  await checkV1Model(c.env, b.model);
  const asked = await askFromRequest(c, { conversation, model: b.model, source: "api", ...threadHeaders(c) });
  c.header(THREAD_ID_HEADER, asked.threadId);
  const id = `msg_${asked.threadId}_${Date.now().toString(36)}`;
  const { answer } = asked;
  const message = (text: string | null, outcome: RunOutcome | null) => ({
    id,
    type: "message",
    role: "assistant",
    model: b.model,
    content: text === null ? [] : [{ type: "text", text }],
    stop_reason: outcome ? stopOf(outcome) : null,
    stop_sequence: null,
    usage: usageOf(outcome ? usageIn(outcome) : null),
  });

  if (!b.stream) {
    for await (const _ of answer.pieces());
    const failure = runError(answer.outcome, answer.text);
    if (failure) throw failure;
    await asked.remember();
    return c.json(message(answer.text, answer.outcome));
  }

  return streamSSE(c, async (sse) => {
    const send = (event: string, data: Record<string, unknown>) => sse.writeSSE({ event, data: JSON.stringify({ type: event, ...data }) });
    await send("message_start", { message: message(null, null) });
    await send("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    for await (const piece of answer.pieces()) await send("content_block_delta", { index: 0, delta: { type: "text_delta", text: piece } });
    const failure = runError(answer.outcome, answer.text);
    if (failure) {
      await sse.writeSSE({ event: "error", data: JSON.stringify(anthropicErrorBody(failure)) });
      return;
    }
    await asked.remember();
    await send("content_block_stop", { index: 0 });
    await send("message_delta", { delta: { stop_reason: stopOf(answer.outcome), stop_sequence: null }, usage: usageOf(usageIn(answer.outcome)) });
    await send("message_stop", {});
  });
}

/** The Models API's list, for a client that speaks it (GET /v1/models with its version header). */
export function anthropicModels(list: ModelInfo[]) {
  const data = list.map((m) => ({ type: "model", id: m.id, display_name: m.displayName ?? m.id, created_at: new Date(0).toISOString() }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

export const anthropicRoutes = new Hono<AppEnv>().post("/messages", v1BodyLimit, messages);
anthropicRoutes.onError(anthropicError);
