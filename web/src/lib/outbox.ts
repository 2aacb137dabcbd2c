// Messages the user sent that the server has not yet acknowledged. Kept in the user's storage so
// that a reload or a closed tab does not lose them (outboxStorage.ts); retried with backoff on
// transient failures.
// Each item keeps its clientMessageId for life, so a retry of a request that did reach the server
// is answered with the first message and runs nothing again.

import type { Message } from "@protocol";
import { ApiError, errorText } from "../api";
import type { UserStorage } from "../session/userStorage";
import { storedOutboxItems, type OutboxItem } from "./outboxStorage";

export type { OutboxItem };

export interface OutboxOptions {
  storage: Pick<UserStorage, "get" | "set">;
  /**
   * Sends one message (messageTransport.ts: over the thread's socket, or by POST); answers the stored
   * message, or throws the ApiError POST would have.
   */
  deliver: (item: OutboxItem) => Promise<Message>;
}

const MAX_DELAY_MS = 30_000;

function backoff(attempts: number): number {
  const base = Math.min(MAX_DELAY_MS, 1000 * 2 ** Math.max(0, attempts - 1));
  return base / 2 + Math.random() * (base / 2);
}

/**
 * How long to wait before sending an item again after `err` ended its `attempts`-th try; null when
 * trying again cannot help (the server refused the message): the user decides.
 */
export function retryDelay(err: unknown, attempts: number): number | null {
  if (err instanceof ApiError && !err.transient && err.status !== 401) return null;
  return err instanceof ApiError && err.retryAfter ? err.retryAfter * 1000 : backoff(attempts);
}

function newId(): string {
  if (typeof crypto !== "undefined" && "randomUUID" in crypto) return crypto.randomUUID();
  return `c_${Date.now().toString(36)}_${Math.random().toString(36).slice(2)}`;
}

function newItem(threadId: string, content: string, extra: Pick<OutboxItem, "attachments" | "branch">): OutboxItem {
  return {
    clientMessageId: newId(),
    threadId,
    content,
    ...(extra.attachments?.length ? { attachments: extra.attachments } : {}),
    ...(extra.branch ? { branch: extra.branch } : {}),
    createdAt: Date.now(),
    state: "sending",
    attempts: 0,
  };
}

/**
 * The item that a user message posted without a clientMessageId (by another client) looks like: the
 * oldest pending post of its thread with the same content not yet hidden by another message (never an
 * edit or a regeneration: those always carry their id, and a regeneration has the content of a message
 * already stored). None when the message already hides one.
 */
function lookAlike(items: readonly OutboxItem[], message: Message): OutboxItem | undefined {
  if (items.some((i) => i.echoedMessageId === message.id)) return undefined;
  return items.find(
    (i) => i.threadId === message.threadId && i.content === message.content && i.state !== "failed" && !i.echoedMessageId && !i.branch,
  );
}

/**
 * Sends the stored items, one request at a time for each, and sends one again later when a retry
 * may help. An item leaves once the server acknowledges it.
 */
function retryingSender(stored: ReturnType<typeof storedOutboxItems>, deliver: OutboxOptions["deliver"], stopped: () => boolean) {
  const confirmedListeners = new Set<(message: Message) => void>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const inFlight = new Set<string>();

  function clearTimer(id: string): void {
    const timer = timers.get(id);
    if (timer) clearTimeout(timer);
    timers.delete(id);
  }

  function remove(id: string): void {
    clearTimer(id);
    stored.remove(id);
  }

  async function attempt(id: string): Promise<void> {
    const item = stored.find(id);
    if (!item || inFlight.has(id) || stopped()) return;
    clearTimer(id);
    inFlight.add(id);
    stored.update(id, { state: "sending", attempts: item.attempts + 1, nextAttemptAt: undefined });
    try {
      const message = await deliver(item);
      // Hand the stored message over first, so that it replaces the pending one in the same render.
      confirmedListeners.forEach((l) => l(message));
      remove(id);
    } catch (err) {
      const current = stored.find(id);
      if (!current || stopped()) return; // confirmed meanwhile by the socket, discarded, or stopped
      const delay = retryDelay(err, current.attempts);
      if (delay === null) {
        stored.update(id, { state: "failed", error: errorText(err) });
      } else {
        stored.update(id, { state: "waiting", error: errorText(err), nextAttemptAt: Date.now() + delay });
        timers.set(id, setTimeout(() => void attempt(id), delay));
      }
    } finally {
      inFlight.delete(id);
    }
  }

  return {
    attempt,
    remove,
    /** No retry is waiting any more. */
    cancelRetries(): void {
      for (const id of [...timers.keys()]) clearTimer(id);
    },
    onConfirmed(listener: (message: Message) => void): () => void {
      confirmedListeners.add(listener);
      return () => confirmedListeners.delete(listener);
    },
  };
}

export function createOutbox({ storage, deliver }: OutboxOptions) {
  /** Until start() and after stop(): nothing is sent, scheduled or written to the user's storage. */
  let stopped = true;
  const stored = storedOutboxItems(storage, () => !stopped);
  const sender = retryingSender(stored, deliver, () => stopped);

  return {
    /** What waits to be acknowledged, oldest first. */
    items: stored.items,
    /** Called with the stored message when the server acknowledges an item. */
    onConfirmed: sender.onConfirmed,

    enqueue(threadId: string, content: string, extra: Pick<OutboxItem, "attachments" | "branch"> = {}): OutboxItem {
      const item = newItem(threadId, content, extra);
      stored.add(item);
      void sender.attempt(item.clientMessageId);
      return item;
    },

    retry(id: string): void {
      void sender.attempt(id);
    },

    discard(id: string): void {
      sender.remove(id);
    },

    /**
     * Sends what is not sent yet (a previous page's items too), and goes on retrying. Called when
     * the session starts, and again when the browser is back online.
     */
    start(): void {
      stopped = false;
      for (const i of stored.items.get()) if (i.state !== "failed") void sender.attempt(i.clientMessageId);
    },

    /**
     * The session ended (sign-out, a refused token, another user): no more retries or writes. A
     * request already out may still land; its item stays stored, and the next start() sends it
     * again with the same clientMessageId, which the server answers without storing it twice.
     */
    stop(): void {
      stopped = true;
      sender.cancelRetries();
    },

    /**
     * A user message arrived over the socket. The message carries the clientMessageId it was posted
     * with: ours means the pending item is done; another one means it is someone else's. A message
     * posted without one hides its look-alike, which still waits for its own acknowledgement.
     */
    reconcile(message: Message): void {
      if (message.role !== "user") return;
      const cid = message.clientMessageId;
      if (cid) {
        if (stored.find(cid)) sender.remove(cid);
        return;
      }
      const match = lookAlike(stored.items.get(), message);
      if (match) stored.update(match.clientMessageId, { echoedMessageId: message.id });
    },

    /** Drop a deleted thread's items. */
    forgetThread(threadId: string): void {
      for (const i of stored.items.get()) if (i.threadId === threadId) sender.remove(i.clientMessageId);
    },
  };
}

export type Outbox = ReturnType<typeof createOutbox>;
