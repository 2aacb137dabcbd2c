// Rich activity, which the original hard-coded in sendToThread (the seed's named debt), as a plugin:
// status rows at start and end, a row per pipeline step, and thinking / tool rows. Each is stored in
// the thread's object as it happens (local, synchronous) and reaches D1 with the run's flush.
import { isCodeTool, type StreamEvent } from "../../../protocol";
import type { NewMessage, PluginContext, PluginDefinition, RunInfo, RunOutcome, StepInfo } from "../contract";

/**
 * One run's rows, kept in memory and stored with the run's end (nothing is written on the way to the
 * model), each stamped with the object's clock when it happened, so rows list in the order they did.
 */
class RunActivity {
  readonly rows: NewMessage[] = [];
  private thinking = "";

  constructor(
    private readonly clock: Pick<PluginContext, "now">,
    private readonly run: RunInfo,
  ) {}

  start(): void {
    this.add({ role: "system", kind: "status", content: "pipeline_start", metadata: { messageId: this.run.messageId } });
  }

  step(info: StepInfo): void {
    this.flushThinking();
    this.add({ role: "system", kind: "pipeline_step", content: info.step, metadata: { step: info.step, detail: info.detail ?? null } });
  }

  /** Thinking deltas gather into one row, ended by whatever comes next; text is the reply's, not activity. */
  stream(event: StreamEvent): void {
    if (event.type === "thinking") {
      this.thinking += event.delta;
      return;
    }
    if (event.type === "text") return;
    this.flushThinking();
    // A code run is a tool call like the others (its result comes as a tool_result: recorder.ts).
    if (event.type === "tool_call" || (event.type === "server_tool_call" && isCodeTool(event.toolName))) {
      this.add({
        role: "assistant", kind: "tool_call", content: JSON.stringify(event.input), model: this.run.model,
        metadata: { toolUseId: event.toolUseId, toolName: event.toolName, input: event.input },
      });
    } else if (event.type === "tool_result") {
      this.add({
        role: "system", kind: "tool_result", content: event.content,
        metadata: { toolUseId: event.toolUseId, toolName: event.toolName, isError: event.isError },
      });
    }
  }

  end(outcome: RunOutcome): void {
    this.flushThinking();
    const failed = outcome.status === "failed";
    this.add({
      role: "system",
      kind: "status",
      content: failed ? "pipeline_error" : "pipeline_complete",
      metadata: {
        durationMs: outcome.durationMs,
        usage: outcome.usage,
        ...(failed ? { code: outcome.error?.code, message: outcome.error?.message, retryable: outcome.error?.retryable } : {}),
      },
    });
  }

  private add(row: NewMessage): void {
    this.rows.push({ ...row, parentId: this.run.messageId, createdAt: this.clock.now(), metadata: { runId: this.run.runId, ...row.metadata } });
  }

  private flushThinking(): void {
    if (!this.thinking) return;
    this.add({ role: "assistant", kind: "thinking", content: this.thinking, model: this.run.model });
    this.thinking = "";
  }
}

export const activityPlugin: PluginDefinition = {
  name: "activity",
  version: "2.0.0",
  description: "Stores each run's steps, thinking and tool calls as messages.",
  register(ctx) {
    const runs = new Map<string, RunActivity>();
    return {
      onPipelineStart(run) {
        const activity = new RunActivity(ctx, run);
        runs.set(run.runId, activity);
        activity.start();
      },
      onPipelineStep(info, run) {
        runs.get(run.runId)?.step(info);
      },
      onStreamEvent(event, run) {
        runs.get(run.runId)?.stream(event);
      },
      onPipelineComplete(outcome, run) {
        const activity = runs.get(run.runId) ?? new RunActivity(ctx, run);
        runs.delete(run.runId);
        activity.end(outcome);
        for (const row of activity.rows) ctx.thread.addMessage(row);
      },
    };
  },
};
