// The records a run leaves, each declared once: the assistant's message, the run's end, the turns
// of an exchange the model did not answer in whole.
import type { EventMap } from "../../../protocol";
import type { RunError } from "../../invoker/errors";
import type { ApiMessage } from "../../invoker/types";
import { messageRecord, type MessageRecord } from "../store/messages";
import type { RunEnd } from "../store";

/** The assistant's answer to input message `parentId`, as stored. */
export function assistantMessage(fields: { threadId: string; parentId: string; content: string; model: string; metadata: Record<string, unknown>; now: number }): MessageRecord {
  const { now: createdAt, ...rest } = fields;
  return messageRecord({ ...rest, role: "assistant", source: "assistant", createdAt });
}

export const completedEnd = (commandsHandled: string[], commandsUnhandled: string[], durationMs: number): RunEnd & { status: "completed" } => ({
  status: "completed",
  commandsHandled,
  commandsUnhandled,
  durationMs,
});

export const failedEnd = (error: RunError): RunEnd & { status: "failed" } => ({
  status: "failed",
  code: error.code,
  message: error.message,
  retryable: error.retryable,
});

/** The event that ends a run (pipeline:complete or pipeline:error), as its clients get it. */
export function endEvent(threadId: string, runId: string, end: RunEnd) {
  if (end.status === "completed") {
    const { commandsHandled, commandsUnhandled, durationMs } = end;
    return { event: "pipeline:complete", data: { threadId, runId, commandsHandled, commandsUnhandled, durationMs } satisfies EventMap["pipeline:complete"] } as const;
  }
  const { code, message, retryable } = end;
  return { event: "pipeline:error", data: { threadId, runId, code, message, retryable } satisfies EventMap["pipeline:error"] } as const;
}

/** The person's turn alone, and what the model had said of its answer, if anything. */
export function partialTurns(question: string, answered: string): ApiMessage[] {
  const turns: ApiMessage[] = [userTurn(question)];
  if (answered) turns.push({ role: "assistant", content: [{ type: "text", text: answered }] });
  return turns;
}

export const userTurn = (text: string): ApiMessage => ({ role: "user", content: [{ type: "text", text }] });
