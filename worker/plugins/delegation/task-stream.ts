// A task's run, mirrored to the parent thread's sockets as task:stream: the task thread's object
// follows the run of the iteration in progress and forwards each of its frames, in order.
import type { Task } from "../../../protocol";
import { toTask } from "../../db/shapes";
import type { BroadcastFrame, PluginContext, RunInfo } from "../contract";
import { isTerminal, loadTask, updateTask } from "./tasks";

export class TaskStream {
  /** The task of the run in progress in this object, kept current for task:stream. */
  private current: { runId: string; task: Task; parent: string } | null = null;
  /** Each forward waits for the one before, so the parent's sockets get the frames in order. */
  private forwarding: Promise<void> = Promise.resolve();

  constructor(private readonly ctx: Pick<PluginContext, "owner" | "broadcast" | "logger">) {}

  /** A run starts: if it is an iteration of a task still open, its frames are forwarded from now on. */
  async follow(run: RunInfo): Promise<void> {
    if (!run.taskId) return;
    const row = await loadTask(this.ctx, run.taskId);
    if (!row?.parentThreadId || isTerminal(row.status)) return;
    const task = row.status === "pending" ? await updateTask(this.ctx, row.id, { status: "running" }) : toTask(row);
    this.current = { runId: run.runId, task, parent: row.parentThreadId };
  }

  /** Synchronous, so that frames are queued in the order the core delivered them. */
  forward(frame: BroadcastFrame): void {
    if (!this.current || !("runId" in frame.data) || frame.data.runId !== this.current.runId) return;
    const { parent, task } = this.current;
    const data = { threadId: parent, task, event: frame.event, data: frame.data };
    this.forwarding = this.forwarding
      .then(() => this.ctx.broadcast(parent, "task:stream", data))
      .catch((err) => {
        this.ctx.logger.warn("task:stream forward failed", { error: String(err) });
      });
    if (frame.event === "pipeline:complete" || frame.event === "pipeline:error") this.current = null;
  }

  /** Resolves when every frame forwarded so far has been broadcast. */
  drained(): Promise<void> {
    return this.forwarding;
  }
}
