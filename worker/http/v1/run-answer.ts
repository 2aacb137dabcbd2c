// The answer of a program's run, read from the frames its thread streams (thread/run-follower.ts): the
// text as it grows, with a note where a tool waits for the user's approval in the app, then how the
// run ended. A program never waits past its deadline (the run's timeout): the run goes on in the
// thread, and the answer says where.
import type { EventFrame, RunErrorCode, Usage } from "../../../protocol";

export type RunOutcome =
  | { status: "completed"; usage: Usage | null; stopReason: string | null }
  /** The run failed (or was stopped in the app: `aborted`). */
  | { status: "failed"; code: RunErrorCode; message: string; usage: Usage | null }
  /** The deadline came first: the run goes on in the thread. */
  | { status: "waiting" };

/** Where a person reads and goes on with a thread in the web app. */
export const threadUrl = (origin: string, threadId: string) => `${origin}/t/${encodeURIComponent(threadId)}`;

const decoder = new TextDecoder();

export class RunAnswer {
  /** Everything the answer said so far: the text a client gets, notes included. */
  text = "";
  outcome: RunOutcome = { status: "waiting" };

  constructor(
    private readonly events: ReadableStream<Uint8Array>,
    private readonly deadline: number,
    private readonly url: string,
  ) {}

  /** The answer's pieces of text as they come; `outcome` holds how it ended once they are done. */
  async *pieces(): AsyncGenerator<string> {
    let usage: Usage | null = null;
    let stopReason: string | null = null;
    for await (const frame of this.frames()) {
      const piece = this.pieceOf(frame);
      if (piece) {
        this.text += piece;
        yield piece;
      }
      if (frame.event === "chat:message" && frame.data.message.role === "assistant") {
        usage = frame.data.message.metadata.usage ?? null;
        stopReason = frame.data.message.metadata.stopReason ?? null;
      }
      if (frame.event === "pipeline:complete") this.outcome = { status: "completed", usage, stopReason };
      if (frame.event === "pipeline:error") this.outcome = { status: "failed", code: frame.data.code, message: frame.data.message, usage };
    }
    if (this.outcome.status === "waiting") {
      const note = `${this.text ? "\n\n" : ""}[The answer goes on in the app: ${this.url}]`;
      this.text += note;
      yield note;
    }
  }

  private pieceOf(frame: EventFrame): string | null {
    if (frame.event === "pipeline:stream" && frame.data.type === "text") return frame.data.delta;
    if (frame.event === "tool:approval") {
      return `${this.text && !this.text.endsWith("\n") ? "\n\n" : ""}[Waiting for your approval in the app: ${frame.data.toolName}. ${this.url}]\n\n`;
    }
    return null;
  }

  /** The run's frames, one per line, until its end or the deadline (then the reading stops; the run does not). */
  private async *frames(): AsyncGenerator<EventFrame> {
    const reader = this.events.getReader();
    let buffered = "";
    try {
      for (;;) {
        const left = this.deadline - Date.now();
        if (left <= 0) return;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), left)));
        const read = await Promise.race([reader.read(), late]).finally(() => clearTimeout(timer));
        if (read === "late" || read.done) return;
        buffered += decoder.decode(read.value, { stream: true });
        const lines = buffered.split("\n");
        buffered = lines.pop() ?? "";
        for (const line of lines) if (line) yield JSON.parse(line) as EventFrame;
      }
    } finally {
      await reader.cancel().catch(() => {});
    }
  }
}
