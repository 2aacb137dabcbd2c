// Rich activity, which the original hard-coded in sendToThread (the seed's named debt), as a plugin:
// status rows at start and end, a row per pipeline step, and thinking / tool rows. Each is stored in
// the thread's object as it happens (local, synchronous) and reaches D1 with the run's flush.
import type { StreamEvent } from "../../../protocol";
import type { NewMessage, PluginDefinition, RunInfo } from "../contract";

interface RunActivity {
  run: RunInfo;
  thinking: string;
  rows: NewMessage[];
}

export const activityPlugin: PluginDefinition = {
  name: "activity",
  version: "2.0.0",
  description: "Stores each run's steps, thinking and tool calls as messages.",
  register(ctx) {
    const runs = new Map<string, RunActivity>();

    // Kept in memory and stored with the run's end (nothing is written on the way to the model),
    // each stamped with the object's clock when it happened, so rows list in the order they did.
    const add = (a: RunActivity, row: NewMessage) =>
      a.rows.push({ ...row, parentId: a.run.messageId, createdAt: ctx.now(), metadata: { runId: a.run.runId, ...row.metadata } });
    const flushThinking = (a: RunActivity) => {
      if (!a.thinking) return;
      add(a, { role: "assistant", kind: "thinking", content: a.thinking, model: a.run.model });
      a.thinking = "";
    };

    return {
      onPipelineStart(run) {
        const a: RunActivity = { run, thinking: "", rows: [] };
        runs.set(run.runId, a);
        add(a, { role: "system", kind: "status", content: "pipeline_start", metadata: { messageId: run.messageId } });
      },
      onPipelineStep(info, run) {
        const a = runs.get(run.runId);
        if (!a) return;
        flushThinking(a);
        add(a, { role: "system", kind: "pipeline_step", content: info.step, metadata: { step: info.step, detail: info.detail ?? null } });
      },
      onStreamEvent(event: StreamEvent, run) {
        const a = runs.get(run.runId);
        if (!a) return;
        if (event.type === "thinking") {
          a.thinking += event.delta;
          return;
        }
        if (event.type === "text") return;
        flushThinking(a);
        if (event.type === "tool_call") {
          add(a, {
            role: "assistant", kind: "tool_call", content: JSON.stringify(event.input), model: run.model,
            metadata: { toolUseId: event.toolUseId, toolName: event.toolName, input: event.input },
          });
        } else if (event.type === "tool_result") {
          add(a, {
            role: "system", kind: "tool_result", content: event.content,
            metadata: { toolUseId: event.toolUseId, toolName: event.toolName, isError: event.isError },
          });
        }
      },
      onPipelineComplete(outcome, run) {
        const a = runs.get(run.runId) ?? { run, thinking: "", rows: [] };
        runs.delete(run.runId);
        flushThinking(a);
        const failed = outcome.status === "failed";
        add(a, {
          role: "system",
          kind: "status",
          content: failed ? "pipeline_error" : "pipeline_complete",
          metadata: {
            durationMs: outcome.durationMs,
            usage: outcome.usage,
            ...(failed ? { code: outcome.error?.code, message: outcome.error?.message, retryable: outcome.error?.retryable } : {}),
          },
        });
        for (const row of a.rows) ctx.thread.addMessage(row);
      },
    };
  },
};
