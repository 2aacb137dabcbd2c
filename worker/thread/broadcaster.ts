import type { BroadcastFrame } from "../plugins/contract";
import type { RoomStore } from "./room-store";

/**
 * Numbers every event of a thread, keeps it in the replay buffer, and hands it to the delivery
 * hooks. Synchronous from seq to socket, so frames leave in seq order and a socket that connects
 * between two events gets each of them exactly once (from replay or live, never both).
 */
export class Broadcaster {
  private seq: number;

  constructor(
    private readonly store: RoomStore,
    private readonly threadId: () => string,
    private readonly deliver: (frame: BroadcastFrame) => void,
  ) {
    this.seq = store.lastSeq();
  }

  get lastSeq(): number {
    return this.seq;
  }

  emit(event: string, data: Record<string, unknown>): BroadcastFrame {
    const threadId = this.threadId(); // throws for an object with no thread: nothing is written then
    const seq = ++this.seq;
    const timestamp = Date.now();
    const json = JSON.stringify({ event, data, timestamp, seq });
    this.store.appendEvent(seq, json);
    const frame = { threadId, event, data, timestamp, seq, json };
    this.deliver(frame);
    return frame;
  }
}

type DeltaKind = "text" | "thinking";

/**
 * Token deltas, coalesced: the first goes out at once, later ones at most once per `intervalMs`,
 * so a fast stream is a few frames a second per thread instead of one per token.
 */
export class DeltaCoalescer {
  private kind: DeltaKind | null = null;
  private buffer = "";
  private lastFlush = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly intervalMs: number,
    private readonly send: (kind: DeltaKind, delta: string) => void,
  ) {}

  push(kind: DeltaKind, delta: string): void {
    if (this.kind !== kind) this.flush();
    this.kind = kind;
    this.buffer += delta;
    if (this.timer) return;
    const wait = this.lastFlush + this.intervalMs - Date.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  /** Sends what is buffered now; called before any other event so the order on the wire holds. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.buffer && this.kind) {
      const delta = this.buffer;
      this.buffer = "";
      this.lastFlush = Date.now();
      this.send(this.kind, delta);
    }
  }
}
