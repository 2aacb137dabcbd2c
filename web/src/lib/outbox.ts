// Messages the user sent that the server has not yet acknowledged. Kept in localStorage so that a
// reload or a closed tab does not lose them; retried with backoff on transient failures. Each item
// keeps its clientMessageId for life, so a retry of a request that did reach the server is answered
// with the first message and runs nothing again.

import { ApiError, errorText, request } from "../api";
import type { Message } from "@protocol";

export interface OutboxItem {
  clientMessageId: string;
  threadId: string;
  content: string;
  createdAt: number;
  /** sending: a request is out; waiting: will retry at nextAttemptAt; failed: needs the user. */
  state: "sending" | "waiting" | "failed";
  attempts: number;
  error?: string;
  nextAttemptAt?: number;
  /**
   * The id of a stored message that looks like this one (same thread and content) seen over the
   * socket before the POST answered. The item is then no longer shown, but stays until its own
   * request is acknowledged: a look-alike from another tab must not make this one get lost.
   */
  echoedMessageId?: string;
}

const STORAGE_KEY = "orchestrator.outbox";
const MAX_DELAY_MS = 30_000;

let items: readonly OutboxItem[] = readStorage();
/** Items this tab removed: not written back when merging with other tabs' items. */
const removed = new Set<string>();
const listeners = new Set<() => void>();
const confirmedListeners = new Set<(message: Message) => void>();
const timers = new Map<string, ReturnType<typeof setTimeout>>();
const inFlight = new Set<string>();

function readStorage(): OutboxItem[] {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    return Array.isArray(parsed) ? (parsed as OutboxItem[]).filter((i) => i && typeof i.clientMessageId === "string") : [];
  } catch {
    return [];
  }
}

function writeStorage(): void {
  try {
    // Merge with items another tab may have written, so that tabs do not erase each other's outbox.
    const mine = new Set(items.map((i) => i.clientMessageId));
    const others = readStorage().filter((i) => !mine.has(i.clientMessageId) && !removed.has(i.clientMessageId));
    localStorage.setItem(STORAGE_KEY, JSON.stringify([...items, ...others]));
  } catch {
    /* storage full or unavailable: the outbox still works for this page */
  }
}

function commit(next: readonly OutboxItem[]): void {
  items = next;
  writeStorage();
  listeners.forEach((l) => l());
}

function update(id: string, patch: Partial<OutboxItem>): void {
  if (!items.some((i) => i.clientMessageId === id)) return;
  commit(items.map((i) => (i.clientMessageId === id ? { ...i, ...patch } : i)));
}

function remove(id: string): void {
  const timer = timers.get(id);
  if (timer) clearTimeout(timer);
  timers.delete(id);
  removed.add(id);
  if (items.some((i) => i.clientMessageId === id)) commit(items.filter((i) => i.clientMessageId !== id));
}

function backoff(attempts: number): number {
  const base = Math.min(MAX_DELAY_MS, 1000 * 2 ** Math.max(0, attempts - 1));
  return base / 2 + Math.random() * (base / 2);
}

async function attempt(id: string): Promise<void> {
  const item = items.find((i) => i.clientMessageId === id);
  if (!item || inFlight.has(id)) return;
  const timer = timers.get(id);
  if (timer) clearTimeout(timer);
  timers.delete(id);
  inFlight.add(id);
  update(id, { state: "sending", attempts: item.attempts + 1, nextAttemptAt: undefined });
  try {
    const { message } = await request("POST /api/threads/:id/messages", {
      params: { id: item.threadId },
      body: { content: item.content, clientMessageId: item.clientMessageId },
    });
    // Hand the stored message over first, so that it replaces the pending one in the same render.
    confirmedListeners.forEach((l) => l(message));
    remove(id);
  } catch (err) {
    const current = items.find((i) => i.clientMessageId === id);
    if (!current) return; // confirmed meanwhile by the socket, or discarded
    const retryable = !(err instanceof ApiError) || err.transient || err.status === 401;
    if (retryable) {
      const delay =
        err instanceof ApiError && err.retryAfter ? err.retryAfter * 1000 : backoff(current.attempts);
      update(id, { state: "waiting", error: errorText(err), nextAttemptAt: Date.now() + delay });
      timers.set(id, setTimeout(() => void attempt(id), delay));
    } else {
      update(id, { state: "failed", error: errorText(err) });
    }
  } finally {
    inFlight.delete(id);
  }
}

function newId(): string {
  if (typeof crypto !== "undefined" && "randomUUID" in crypto) return crypto.randomUUID();
  return `c_${Date.now().toString(36)}_${Math.random().toString(36).slice(2)}`;
}

export const outbox = {
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  getSnapshot(): readonly OutboxItem[] {
    return items;
  },
  /** Called with the stored message when a POST is acknowledged. */
  onConfirmed(listener: (message: Message) => void): () => void {
    confirmedListeners.add(listener);
    return () => confirmedListeners.delete(listener);
  },

  enqueue(threadId: string, content: string): OutboxItem {
    const item: OutboxItem = {
      clientMessageId: newId(),
      threadId,
      content,
      createdAt: Date.now(),
      state: "sending",
      attempts: 0,
    };
    commit([...items, item]);
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
   * A user message arrived over the socket. The message carries the clientMessageId it was posted
   * with: ours means the pending item is done; another one means it is someone else's. A message
   * posted without one (another client) hides the oldest pending item of that thread with the same
   * content, which still waits for its own acknowledgement.
   */
  reconcile(message: Message): void {
    if (message.role !== "user") return;
    const cid = message.clientMessageId;
    if (cid) {
      if (items.some((i) => i.clientMessageId === cid)) remove(cid);
      return;
    }
    if (items.some((i) => i.echoedMessageId === message.id)) return;
    const match = items.find(
      (i) => i.threadId === message.threadId && i.content === message.content && i.state !== "failed" && !i.echoedMessageId,
    );
    if (match) update(match.clientMessageId, { echoedMessageId: message.id });
  },

  /** Drop a deleted thread's items. */
  forgetThread(threadId: string): void {
    for (const i of items) if (i.threadId === threadId) remove(i.clientMessageId);
  },
};

// Resume what a previous page left unsent; retry at once when the browser comes back online.
for (const i of items) if (i.state !== "failed") void attempt(i.clientMessageId);
window.addEventListener("online", () => {
  for (const i of items) if (i.state === "waiting") void attempt(i.clientMessageId);
});
