// A program's view of the run that answers its message (the compatible endpoints, the MCP server's ask):
// that run's frames, as the thread's sockets get them, one JSON line each, from its pipeline:start to
// its end (pipeline:complete or pipeline:error), then the stream closes. The thread's other frames
// (other runs, other people's messages) are not the program's to see.
import type { EventFrame } from "../../protocol";
import type { Broadcaster } from "./broadcaster";

const encoder = new TextEncoder();

/** The run's own frames carry its id; its answer is a chat:message whose metadata names it. */
function runIdOf(frame: EventFrame): string | undefined {
  if (frame.event === "chat:message") return frame.data.message.metadata?.runId;
  return "runId" in frame.data ? (frame.data.runId as string) : undefined;
}

export class RunFollower {
  readonly stream: ReadableStream<Uint8Array>;
  private controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  private messageId: string | null = null;
  private runId: string | null = null;
  /** Frames before the message's id is known: storing it may start its run at once (the queue's pump). */
  private early: [EventFrame, string][] | null = [];
  private readonly unfollow: () => void;

  constructor(events: Broadcaster) {
    this.stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      // The program went away (or stopped waiting): nothing more is kept for it.
      cancel: () => this.unfollow(),
    });
    // Before the message is stored, so no frame of its run can come first.
    this.unfollow = events.follow((frame, json) => this.take(frame, json));
  }

  /** The message whose run to follow, once it is stored. */
  follow(messageId: string): void {
    this.messageId = messageId;
    const early = this.early ?? [];
    this.early = null;
    for (const [frame, json] of early) this.take(frame, json);
  }

  /** Nothing to follow (the message was refused). */
  close(): void {
    this.early = null;
    this.unfollow();
    this.controller?.close();
  }

  private take(frame: EventFrame, json: string): void {
    if (this.early) return void this.early.push([frame, json]);
    if (frame.event === "pipeline:start" && frame.data.messageId === this.messageId && this.runId === null) this.runId = frame.data.runId;
    if (this.runId === null || runIdOf(frame) !== this.runId) return;
    try {
      this.controller?.enqueue(encoder.encode(json + "\n"));
    } catch {
      return this.unfollow(); // its reader cancelled
    }
    if (frame.event === "pipeline:complete" || frame.event === "pipeline:error") this.close();
  }
}
