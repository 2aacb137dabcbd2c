import { newId } from "../lib/ids";
import { windowByBudget, type StoredTurn } from "../invoker/conversation";
import type { ApiMessage } from "../invoker/types";
import type { RoomStore } from "./room-store";

/**
 * The conversation this object holds for the model (the Messages API transcript), named by its
 * sessionId. It is "live" for a thread when the thread's stored sessionId names it; otherwise the
 * object has lost it (or never had it) and the next run starts a fresh one, with history injected.
 */
export class ResidentConversation {
  private turns: StoredTurn[] | null = null;

  constructor(private readonly store: RoomStore) {}

  get sessionId(): string | null {
    return this.store.getMeta("sessionId");
  }

  isLiveFor(threadSessionId: string | null): boolean {
    return !!threadSessionId && this.sessionId === threadSessionId && this.loaded().length > 0;
  }

  /** Drops a conversation the thread no longer names, so it is never mixed with injected history. */
  beginRun(threadSessionId: string | null): boolean {
    if (this.isLiveFor(threadSessionId)) return true;
    this.store.clearTranscript();
    this.store.setMeta("sessionId", null);
    this.turns = [];
    return false;
  }

  /** The newest whole exchanges inside `budget` estimated tokens. */
  window(budget: number): { messages: ApiMessage[]; dropped: number } {
    return windowByBudget(this.loaded(), budget);
  }

  /** Stores one exchange's turns; answers the sessionId (new when this is the first exchange). */
  commit(turns: ApiMessage[]): string {
    let id = this.sessionId;
    if (!id) {
      id = newId("sess");
      this.store.setMeta("sessionId", id);
    }
    // The cache grows with the store, so a run never re-reads (and re-parses) the whole transcript.
    if (turns.length) this.turns?.push(...this.store.appendExchange(turns));
    return id;
  }

  reset(): void {
    this.turns = null;
  }

  private loaded(): StoredTurn[] {
    this.turns ??= this.store.transcript();
    return this.turns;
  }
}
