// The outbox's items, kept in the user's storage so that a reload or a closed tab does not lose
// them. The user's other tabs keep theirs there too: each write merges with what they wrote.

import type { Attachment } from "@protocol";
import type { UserStorage } from "../session/userStorage";
import { createStore, type ReadableStore } from "./store";

/** A message on its way to the server. */
export interface OutboxItem {
  clientMessageId: string;
  threadId: string;
  content: string;
  /** Files uploaded to the thread that go with the message. */
  attachments?: Attachment[];
  /** A new version of user message `messageId` (an edit; a regeneration keeps its content and files). */
  branch?: { messageId: string; regenerate?: boolean };
  createdAt: number;
  /** sending: a request is out; waiting: will retry at nextAttemptAt; failed: needs the user. */
  state: "sending" | "waiting" | "failed";
  attempts: number;
  error?: string;
  nextAttemptAt?: number;
  /**
   * The id of a stored message that looks like this one (same thread and content) seen over the
   * socket before its own request was answered. The item is then no longer shown, but stays until its own
   * request is acknowledged: a look-alike from another client must not make this one get lost.
   */
  echoedMessageId?: string;
}

const STORAGE_NAME = "outbox";

/** The items, read from `storage` at once; changes are written through while `writable()` says so. */
export function storedOutboxItems(storage: Pick<UserStorage, "get" | "set">, writable: () => boolean) {
  /** Items this tab removed: not written back when merging with other tabs' items. */
  const removed = new Set<string>();

  function read(): OutboxItem[] {
    try {
      const parsed: unknown = JSON.parse(storage.get(STORAGE_NAME) ?? "[]");
      return Array.isArray(parsed) ? (parsed as OutboxItem[]).filter((i) => i && typeof i.clientMessageId === "string") : [];
    } catch {
      return [];
    }
  }

  const items = createStore<readonly OutboxItem[]>(read());

  function commit(next: readonly OutboxItem[]): void {
    if (!writable()) return;
    const mine = new Set(next.map((i) => i.clientMessageId));
    const others = read().filter((i) => !mine.has(i.clientMessageId) && !removed.has(i.clientMessageId));
    storage.set(STORAGE_NAME, JSON.stringify([...next, ...others]));
    items.set(next);
  }

  const find = (id: string) => items.get().find((i) => i.clientMessageId === id);

  return {
    /** Oldest first. */
    items: items as ReadableStore<readonly OutboxItem[]>,
    find,
    add(item: OutboxItem): void {
      commit([...items.get(), item]);
    },
    update(id: string, patch: Partial<OutboxItem>): void {
      if (find(id)) commit(items.get().map((i) => (i.clientMessageId === id ? { ...i, ...patch } : i)));
    },
    remove(id: string): void {
      removed.add(id);
      if (find(id)) commit(items.get().filter((i) => i.clientMessageId !== id));
    },
  };
}
