// How a run ends, in two moves that recovery can tell apart:
//   settleRun  one storage transaction: the answer, the turns, the thread's activity, and the run off
//              the queue, marked `stored` with the end event it owes
//   endRun     the end event (pipeline:complete or pipeline:error, the only place either is sent),
//              then the run is marked `ended`
// A restart between the two finds a stored run and sends its end event; it never runs it again.
import type { Message } from "../../protocol";
import type { ApiMessage } from "../invoker/types";
import type { Usage } from "../invoker/types";
import { costUsd } from "../invoker/prices";
import { newId } from "../lib/ids";
import type { RunInfo } from "../plugins/contract";
import { newSessionId } from "./model-view";
import type { PipelineDeps, RunRequest } from "./pipeline";
import type { RunEnd } from "./store";
import { publicThread, type ThreadRecord } from "./store/thread-row";

export interface RunResult {
  output: string;
  turns: ApiMessage[];
  usage: Usage;
  metadata: Record<string, unknown>;
  end: RunEnd;
}

export function settleRun(
  deps: PipelineDeps,
  run: RunInfo,
  req: Omit<RunRequest, "signal">,
  result: RunResult,
): { assistant?: Message; thread: ThreadRecord } {
  const { store, writer, view } = deps;
  const parentId = req.message.parentId;
  const stored = store.transaction(() => {
    const now = writer.clock.now();
    const before = store.thread.get()!;
    // The exchange's turns, also of a failed run (its user turn at least), so the model never loses
    // what the person said; a run that ran again replaces them.
    const turns = view.turnsFor(req.message.id, result.turns.length ? result.turns : [userTurn(run.content)]);
    store.turns.put(req.message.id, turns);
    const assistant = result.output
      ? writer.addMessage({
          id: newId("msg", now),
          threadId: run.threadId,
          role: "assistant",
          kind: "text",
          source: "assistant",
          content: result.output,
          model: run.model,
          metadata: result.metadata,
          clientMessageId: null,
          parentId: req.message.id,
          input: false,
          createdAt: now,
        })
      : undefined;
    const thread = writer.updateThread({
      lastActivity: now,
      ...(before.status === "open" ? { status: "active" as const } : {}),
      // A run that began without the model's view of its branch (a new thread, or history injected)
      // starts the conversation the object now holds: a new session.
      ...(run.resident && before.sessionId ? {} : { sessionId: newSessionId() }),
    });
    store.runs.dequeue(req.item.pos);
    store.runs.stored(run.runId, result.end);
    return { assistant, thread, turns };
  });
  deps.spend.add(costUsd(run.model, result.usage));
  view.extend(parentId, req.message.id, stored.turns);
  if (stored.turns.some((t) => hasCompaction(t.message))) store.transaction(() => view.compacted(req.message.id));
  if (stored.assistant) deps.events.emit("chat:message", { threadId: run.threadId, message: stored.assistant });
  return { assistant: stored.assistant, thread: stored.thread };
}

/** The run's last event; a thread whose status the run changed is announced just before it. */
export function endRun(deps: Pick<PipelineDeps, "events" | "store">, run: Pick<RunInfo, "threadId" | "runId" | "thread">, thread: ThreadRecord | null, end: RunEnd): void {
  const { threadId, runId } = run;
  if (thread && thread.status !== run.thread.status) deps.events.emit("thread:updated", { threadId, thread: publicThread(thread) });
  if (end.status === "completed") {
    const { commandsHandled, commandsUnhandled, durationMs } = end;
    deps.events.emit("pipeline:complete", { threadId, runId, commandsHandled, commandsUnhandled, durationMs });
  } else {
    const { code, message, retryable } = end;
    deps.events.emit("pipeline:error", { threadId, runId, code, message, retryable });
  }
  deps.store.runs.ended(runId);
}

function hasCompaction(m: ApiMessage): boolean {
  return typeof m.content !== "string" && m.content.some((b) => (b.type as string) === "compaction");
}

function userTurn(text: string): ApiMessage {
  return { role: "user", content: [{ type: "text", text }] };
}
