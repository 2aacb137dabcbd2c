import type { EventFrame, EventMap, EventName, Message, StreamEvent } from "../../protocol";
import type { BroadcastFrame } from "../plugins/contract";
import type { RoomStore, ThreadRecord } from "./store";
import { PENDING_FRAMES } from "./store/replay";
import { publicThread } from "./store/thread-row";

/**
 * More deltas than a crash can leave unwritten: those waiting for their batch, and a batch written
 * but not yet committed (replay.ts).
 */
const UNCONFIRMED_DELTAS = 2 * PENDING_FRAMES;

const isDelta = (f: EventFrame): boolean =>
  f.event === "pipeline:stream" && (f.data.type === "text" || f.data.type === "thinking" || f.data.type === "tool_input");

/** Who hears every frame after the sockets (the plugins' onBroadcast). */
export interface FrameObserver {
  notify(hook: "onBroadcast", frame: BroadcastFrame): void | Promise<void>;
}

/**
 * Numbers every event of a thread, keeps it in the replay buffer, delivers it to every socket, then
 * lets observers see it. Synchronous from seq to socket, so frames leave in seq order and a socket
 * that connects between two events gets each of them exactly once (from replay or live, never both).
 */
export class Broadcaster {
  private seq: number;
  /** Who follows frames in this instance besides the sockets (a program waiting on its run: run-follower.ts). */
  private readonly followers = new Set<(frame: EventFrame, json: string) => void>();

  constructor(
    private readonly store: RoomStore,
    private readonly ctx: DurableObjectState,
    private readonly observer: FrameObserver,
  ) {
    // A start in the middle of a run (a crash, a deploy) may follow deltas that clients saw and the
    // replay never kept: their seqs are skipped, so a client's `since` never names a different frame.
    this.seq = store.replay.lastSeq() + (store.runs.head()?.state === "running" ? UNCONFIRMED_DELTAS : 0);
  }

  get lastSeq(): number {
    return this.seq;
  }

  emit<K extends EventName>(event: K, data: EventMap[K]): void {
    const thread = this.store.thread.get();
    if (!thread) throw new Error("This object has no thread"); // nothing is written then
    const seq = ++this.seq;
    const frame = { event, data, timestamp: Date.now(), seq } as EventFrame;
    const json = JSON.stringify(frame);
    // A delta goes out before it is written (with its batch, replay.ts), so it never waits at the
    // output gate. Every other frame (a run's start and end, a message) is durable, with the deltas
    // before it, before any client sees it. A delta a crash loses from the replay was a moment of the
    // answer's text the next start skips over (see the constructor): seqs are never given twice.
    const delta = isDelta(frame);
    if (!delta) this.store.replay.append(seq, json);
    for (const ws of this.ctx.getWebSockets()) {
      try {
        ws.send(json);
      } catch {
        // A socket closing under us; its close event tidies up.
      }
    }
    for (const follow of this.followers) follow(frame, json);
    if (delta) this.store.replay.appendDelta(seq, json);
    void this.observer.notify("onBroadcast", { ...frame, threadId: thread.id, json });
  }

  /** Every frame from now on goes to `follow` too, until the answered function is called. */
  follow(follow: (frame: EventFrame, json: string) => void): () => void {
    this.followers.add(follow);
    return () => this.followers.delete(follow);
  }

  /** The thread as it is now, to its other tabs (with the branch's messages when the branch changed). */
  threadUpdated(t: ThreadRecord, messages?: Message[]): void {
    this.emit("thread:updated", { threadId: t.id, thread: publicThread(t), ...(messages ? { messages } : {}) });
  }
}

/** The stream events a coalescer merges: text, thinking, and a tool's input as it streams. */
export type DeltaEvent = Extract<StreamEvent, { delta: string }>;

/** What may merge: deltas of the same type, and for a tool's input, of the same call (two never mix). */
const kindOf = (e: DeltaEvent): string => (e.type === "tool_input" ? `tool_input:${e.toolUseId}` : e.type);

/**
 * Token deltas, coalesced: the first goes out at once, later ones at most once per `intervalMs`,
 * so a fast stream is a few frames a second per thread instead of one per token. A delta of another
 * kind sends what is buffered first, so the kinds keep their order on the wire.
 */
export class DeltaCoalescer {
  private kind: string | null = null;
  private buffered: DeltaEvent | null = null;
  private lastFlush = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly intervalMs: number,
    private readonly send: (e: DeltaEvent) => void,
  ) {}

  push(e: DeltaEvent): void {
    const kind = kindOf(e);
    if (this.kind !== kind) this.flush();
    this.kind = kind;
    if (this.buffered) this.buffered.delta += e.delta;
    else this.buffered = { ...e };
    if (this.timer) return;
    const wait = this.lastFlush + this.intervalMs - Date.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  /** Sends what is buffered now; called before any other event so the order on the wire holds. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const e = this.buffered;
    this.buffered = null;
    if (e?.delta) {
      this.lastFlush = Date.now();
      this.send(e);
    }
  }
}
