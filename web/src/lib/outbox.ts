// Messages the user sent that the server has not yet acknowledged. Kept in the user's storage so
// that a reload or a closed tab does not lose them; retried with backoff on transient failures.
// Each item keeps its clientMessageId for life, so a retry of a request that did reach the server
// is answered with the first message and runs nothing again.

import type { Attachment, Message } from "@protocol";
import { ApiError, errorText } from "../api";
import type { UserStorage } from "../session/userStorage";
import { createStore, type ReadableStore } from "./store";

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

export interface OutboxOptions {
  storage: Pick<UserStorage, "get" | "set">;
  /**
   * Sends one message (messageTransport.ts: over the thread's socket, or by POST); answers the stored
   * message, or throws the ApiError POST would have.
   */
  deliver: (item: OutboxItem) => Promise<Message>;
}

const STORAGE_NAME = "outbox";
const MAX_DELAY_MS = 30_000;

function backoff(attempts: number): number {
  const base = Math.min(MAX_DELAY_MS, 1000 * 2 ** Math.max(0, attempts - 1));
  return base / 2 + Math.random() * (base / 2);
}

function newId(): string {
  if (typeof crypto !== "undefined" && "randomUUID" in crypto) return crypto.randomUUID();
  return `c_${Date.now().toString(36)}_${Math.random().toString(36).slice(2)}`;
}

export function createOutbox({ storage, deliver }: OutboxOptions) {
  /** Items this outbox removed: not written back when merging with other tabs' items. */
  const removed = new Set<string>();
  const confirmedListeners = new Set<(message: Message) => void>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const inFlight = new Set<string>();
  /** Until start() and after stop(): nothing is sent, scheduled or written to the user's storage. */
  let stopped = true;

  function readStorage(): OutboxItem[] {
    try {
      const parsed: unknown = JSON.parse(storage.get(STORAGE_NAME) ?? "[]");
      return Array.isArray(parsed) ? (parsed as OutboxItem[]).filter((i) => i && typeof i.clientMessageId === "string") : [];
    } catch {
      return [];
    }
  }

  const items = createStore<readonly OutboxItem[]>(readStorage());

  function commit(next: readonly OutboxItem[]): void {
    if (stopped) return;
    // Merge with items another tab may have written, so that tabs do not erase each other's outbox.
    const mine = new Set(next.map((i) => i.clientMessageId));
    const others = readStorage().filter((i) => !mine.has(i.clientMessageId) && !removed.has(i.clientMessageId));
    storage.set(STORAGE_NAME, JSON.stringify([...next, ...others]));
    items.set(next);
  }

  const find = (id: string) => items.get().find((i) => i.clientMessageId === id);

  function update(id: string, patch: Partial<OutboxItem>): void {
    if (find(id)) commit(items.get().map((i) => (i.clientMessageId === id ? { ...i, ...patch } : i)));
  }

  function clearTimer(id: string): void {
    const timer = timers.get(id);
    if (timer) clearTimeout(timer);
    timers.delete(id);
  }

  function remove(id: string): void {
    clearTimer(id);
    removed.add(id);
    if (find(id)) commit(items.get().filter((i) => i.clientMessageId !== id));
  }

  async function attempt(id: string): Promise<void> {
    const item = find(id);
    if (!item || inFlight.has(id) || stopped) return;
    clearTimer(id);
    inFlight.add(id);
    update(id, { state: "sending", attempts: item.attempts + 1, nextAttemptAt: undefined });
    try {
      const message = await deliver(item);
      // Hand the stored message over first, so that it replaces the pending one in the same render.
      confirmedListeners.forEach((l) => l(message));
      remove(id);
    } catch (err) {
      const current = find(id);
      if (!current || stopped) return; // confirmed meanwhile by the socket, discarded, or stopped
      const retryable = !(err instanceof ApiError) || err.transient || err.status === 401;
      if (retryable) {
        const delay = err instanceof ApiError && err.retryAfter ? err.retryAfter * 1000 : backoff(current.attempts);
        update(id, { state: "waiting", error: errorText(err), nextAttemptAt: Date.now() + delay });
        timers.set(id, setTimeout(() => void attempt(id), delay));
      } else {
        update(id, { state: "failed", error: errorText(err) });
      }
    } finally {
      inFlight.delete(id);
    }
  }

  return {
    /** What waits to be acknowledged, oldest first. */
    items: items as ReadableStore<readonly OutboxItem[]>,
    /** Called with the stored message when the server acknowledges an item. */
    onConfirmed(listener: (message: Message) => void): () => void {
      confirmedListeners.add(listener);
      return () => confirmedListeners.delete(listener);
    },

    enqueue(threadId: string, content: string, extra: Pick<OutboxItem, "attachments" | "branch"> = {}): OutboxItem {
      const item: OutboxItem = {
        clientMessageId: newId(),
        threadId,
        content,
        ...(extra.attachments?.length ? { attachments: extra.attachments } : {}),
        ...(extra.branch ? { branch: extra.branch } : {}),
        createdAt: Date.now(),
        state: "sending",
        attempts: 0,
      };
      commit([...items.get(), item]);
      void attempt(item.clientMessageId);
      return item;
    },

    retry(id: string): void {
      void attempt(id);
    },

    discard(id: string): void {
      remove(id);
    },

    /**
     * Sends what is not sent yet (a previous page's items too), and goes on retrying. Called when
     * the session starts, and again when the browser is back online.
     */
    start(): void {
      stopped = false;
      for (const i of items.get()) if (i.state !== "failed") void attempt(i.clientMessageId);
    },

    /**
     * The session ended (sign-out, a refused token, another user): no more retries or writes. A
     * request already out may still land; its item stays stored, and the next start() sends it
     * again with the same clientMessageId, which the server answers without storing it twice.
     */
    stop(): void {
      stopped = true;
      for (const id of [...timers.keys()]) clearTimer(id);
    },

    /**
     * A user message arrived over the socket. The message carries the clientMessageId it was posted
     * with: ours means the pending item is done; another one means it is someone else's. A message
     * posted without one (another client) hides the oldest pending post of that thread with the same
     * content, which still waits for its own acknowledgement (not an edit or a regeneration: those
     * always carry their id, and a regeneration has the content of a message already stored).
     */
    reconcile(message: Message): void {
      if (message.role !== "user") return;
      const cid = message.clientMessageId;
      if (cid) {
        if (find(cid)) remove(cid);
        return;
      }
      if (items.get().some((i) => i.echoedMessageId === message.id)) return;
      const match = items.get().find(
        (i) => i.threadId === message.threadId && i.content === message.content && i.state !== "failed" && !i.echoedMessageId && !i.branch,
      );
      if (match) update(match.clientMessageId, { echoedMessageId: message.id });
    },

    /** Drop a deleted thread's items. */
    forgetThread(threadId: string): void {
      for (const i of items.get()) if (i.threadId === threadId) remove(i.clientMessageId);
    },
  };
}

export type Outbox = ReturnType<typeof createOutbox>;
