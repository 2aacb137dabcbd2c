// Rich activity, which the original hard-coded in sendToThread (the seed's named debt), as a plugin:
// status rows at start and end, a row per pipeline step, and thinking / tool rows, written in one
// D1 batch when the run ends. The core writes none of these.
import { messages } from "../../db/schema";
import { newId } from "../../lib/ids";
import type { BroadcastFrame, PluginDefinition, RunInfo } from "../contract";
import type { StreamEvent } from "../../invoker/types";

type Row = typeof messages.$inferInsert;

interface RunActivity {
  run: RunInfo;
  rows: Row[];
  thinking: string;
  lastAt: number;
}

export const activityPlugin: PluginDefinition = {
  name: "activity",
  version: "1.0.0",
  description: "Stores each run's steps, thinking and tool calls as messages.",
  register(ctx) {
    const runs = new Map<string, RunActivity>();

    const add = (a: RunActivity, row: Omit<Row, "id" | "threadId" | "createdAt" | "source">) => {
      // The object's clock: rows list in the order they happened, the core's messages included.
      a.lastAt = ctx.now();
      const metadata = { runId: a.run.runId, ...(row.metadata ?? {}) };
      a.rows.push({ ...row, metadata, id: newId("msg", a.lastAt), threadId: a.run.threadId, source: "activity", createdAt: a.lastAt });
    };
    const flushThinking = (a: RunActivity) => {
      if (!a.thinking) return;
      add(a, { role: "assistant", kind: "thinking", content: a.thinking, model: a.run.model });
      a.thinking = "";
    };

    return {
      onPipelineStart(run) {
        const a: RunActivity = { run, rows: [], thinking: "", lastAt: 0 };
        runs.set(run.runId, a);
        add(a, { role: "system", kind: "status", content: "pipeline_start", metadata: { messageId: run.messageId } });
      },
      onBroadcast(frame: BroadcastFrame) {
        if (frame.event !== "pipeline:step") return;
        const a = runs.get(frame.data.runId as string);
        if (!a) return;
        flushThinking(a);
        const step = String(frame.data.step);
        add(a, { role: "system", kind: "pipeline_step", content: step, metadata: { step, detail: frame.data.detail ?? null } });
      },
      onStreamEvent(event: StreamEvent, run) {
        const a = runs.get(run.runId);
        if (!a) return;
        if (event.type === "thinking") {
          a.thinking += event.delta;
          return;
        }
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
      async onPipelineComplete(outcome, run) {
        const a = runs.get(run.runId);
        runs.delete(run.runId);
        if (!a) return;
        flushThinking(a);
        const failed = outcome.status === "failed";
        add(a, {
          role: "system",
          kind: "status",
          content: failed ? "pipeline_error" : "pipeline_complete",
          metadata: { durationMs: outcome.durationMs, usage: outcome.usage, ...(failed ? { code: outcome.error?.code } : {}) },
        });
        const inserts = a.rows.map((row) => ctx.db.insert(messages).values(row));
        await ctx.db.batch(inserts as [(typeof inserts)[number], ...typeof inserts]);
      },
    };
  },
};
