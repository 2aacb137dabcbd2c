// The model's view of a thread: the stored turns of the branch that leads to the message a run
// answers. The object keeps the view of the last branch it served; a run on another branch (an edit,
// a switch) rebuilds it from storage, which costs no model call.
import { estimateTokens, type StoredTurn } from "../invoker/conversation";
import type { ApiMessage } from "../invoker/types";
import { newId } from "../lib/ids";
import type { RoomStore } from "./store";

export class ModelView {
  /** The turns of the branch that ends at the exchange `last` (null: the empty branch). */
  private held: { last: string | null; turns: StoredTurn[] } | null = null;

  constructor(private readonly store: RoomStore) {}

  /**
   * The turns before the input message `parentId` leads from. `resident` is true when the object holds
   * the branch's last exchange as turns; false on a new thread, and on a thread that came from D1 with
   * text only (the context plugin injects the history then).
   */
  before(parentId: string | null): { turns: StoredTurn[]; resident: boolean } {
    if (this.held?.last !== parentId) {
      const path = this.store.messages.path(parentId).map((m) => m.id);
      this.held = { last: parentId, turns: this.store.turns.of(path) };
    }
    const turns = this.held.turns;
    const resident = parentId !== null && turns.at(-1)?.exchange === parentId;
    return { turns, resident };
  }

  /** The turns of one exchange, stored under its input message; answers them as stored. */
  turnsFor(exchange: string, turns: ApiMessage[]): StoredTurn[] {
    return turns.map((message) => ({ exchange, message, tokens: estimateTokens(message) }));
  }

  /** After the store holds them: the view grows with the branch instead of being read again. */
  extend(parentId: string | null, exchange: string, turns: StoredTurn[]): void {
    if (this.held?.last !== parentId) {
      this.held = null;
      return;
    }
    this.held.turns.push(...turns);
    this.held.last = exchange;
  }

  /**
   * Exchange `exchange` holds a compaction block: what came before it on the branch leaves the model's
   * view for good, so those turns go from storage (the messages stay), up to the first fork: an
   * exchange another branch also leads through keeps its turns for that branch.
   */
  compacted(exchange: string): number {
    let dropped = 0;
    for (let at = this.store.messages.get(exchange)?.parentId ?? null; at; ) {
      if (this.store.messages.childCount(at) !== 1) break;
      this.store.turns.drop(at);
      dropped++;
      at = this.store.messages.get(at)?.parentId ?? null;
    }
    if (dropped) this.held = null;
    return dropped;
  }

  forget(): void {
    this.held = null;
  }
}

export const newSessionId = () => newId("sess");
