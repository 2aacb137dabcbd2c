// The user's threads, shared by the sidebar and the chat header. Kept fresh by the open thread's
// socket (thread:updated, task:created), by polling when the tab is visible, and by other tabs of
// this app, which announce their changes on a BroadcastChannel.

import { useSyncExternalStore } from "react";
import { request } from "../api";
import type { Thread, ThreadStatus } from "@protocol";

export interface ThreadsState {
  byId: Readonly<Record<string, Thread>>;
  status: "idle" | "loading" | "ready" | "error";
  error?: string;
  nextCursor?: string;
  showArchived: boolean;
}

const PAGE = 50;
const POLL_MS = 20_000;

let state: ThreadsState = { byId: {}, status: "idle", showArchived: false };
const listeners = new Set<() => void>();
const channel = typeof BroadcastChannel !== "undefined" ? new BroadcastChannel("orchestrator.threads") : null;

function set(patch: Partial<ThreadsState>): void {
  state = { ...state, ...patch };
  listeners.forEach((l) => l());
}

function announce(): void {
  channel?.postMessage({ type: "changed" });
}

function merge(threads: Thread[]): Record<string, Thread> {
  const byId = { ...state.byId };
  for (const t of threads) byId[t.id] = t;
  return byId;
}

let refreshing: Promise<void> | null = null;

async function refresh(): Promise<void> {
  if (refreshing) return refreshing;
  refreshing = (async () => {
    if (state.status === "idle") set({ status: "loading" });
    try {
      const [page, archived] = await Promise.all([
        request("GET /api/threads", { query: { limit: PAGE } }),
        state.showArchived ? request("GET /api/threads", { query: { status: "archived", limit: 200 } }) : Promise.resolve(null),
      ]);
      // Replace what this first page covers; keep older entries that later pages hold.
      const oldest = page.threads.reduce((min, t) => Math.min(min, t.lastActivity), Infinity);
      const fresh = new Set(page.threads.map((t) => t.id));
      const byId: Record<string, Thread> = {};
      for (const t of Object.values(state.byId)) {
        if (t.status === "archived") continue;
        if (!fresh.has(t.id) && page.nextCursor && t.lastActivity < oldest) byId[t.id] = t;
      }
      for (const t of page.threads) byId[t.id] = t;
      for (const t of archived?.threads ?? []) byId[t.id] = t;
      set({ byId, status: "ready", error: undefined, nextCursor: page.nextCursor });
    } catch (err) {
      set({ status: state.status === "ready" ? "ready" : "error", error: (err as Error).message });
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

export const threadsStore = {
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  getState: (): ThreadsState => state,
  get: (id: string): Thread | undefined => state.byId[id],

  refresh,

  async loadMore(): Promise<void> {
    if (!state.nextCursor) return;
    const page = await request("GET /api/threads", { query: { limit: PAGE, cursor: state.nextCursor } });
    set({ byId: merge(page.threads), nextCursor: page.nextCursor });
  },

  async setShowArchived(show: boolean): Promise<void> {
    set({ showArchived: show });
    if (show) {
      const page = await request("GET /api/threads", { query: { status: "archived", limit: 200 } });
      set({ byId: merge(page.threads) });
    }
  },

  /** Record a thread as the server now has it (from an answer or a thread:updated event). */
  upsert(thread: Thread): void {
    const current = state.byId[thread.id];
    if (current && JSON.stringify(current) === JSON.stringify(thread)) return;
    set({ byId: merge([thread]) });
  },

  /** Note activity seen on a thread's socket, so the list reorders without waiting for a poll. */
  touch(threadId: string, at: number): void {
    const t = state.byId[threadId];
    if (t && at > t.lastActivity) set({ byId: merge([{ ...t, lastActivity: at }]) });
  },

  async create(body: { name?: string } = {}): Promise<Thread> {
    const { thread } = await request("POST /api/threads", { body });
    set({ byId: merge([thread]) });
    announce();
    return thread;
  },

  async patch(id: string, body: { name?: string; model?: string; status?: ThreadStatus }): Promise<Thread> {
    const { thread } = await request("PATCH /api/threads/:id", { params: { id }, body });
    set({ byId: merge([thread]) });
    announce();
    return thread;
  },

  async remove(id: string): Promise<void> {
    await request("DELETE /api/threads/:id", { params: { id } });
    const byId = { ...state.byId };
    delete byId[id];
    set({ byId });
    announce();
  },
};

export function useThreadsState(): ThreadsState {
  return useSyncExternalStore(threadsStore.subscribe, threadsStore.getState);
}

export function useThread(id: string | null): Thread | undefined {
  return useSyncExternalStore(threadsStore.subscribe, () => (id ? state.byId[id] : undefined));
}

/** Start polling and cross-tab sync; returns a stop function. */
export function startThreadsSync(): () => void {
  void refresh();
  const poll = setInterval(() => {
    if (document.visibilityState === "visible") void refresh();
  }, POLL_MS);
  const onVisible = () => {
    if (document.visibilityState === "visible") void refresh();
  };
  document.addEventListener("visibilitychange", onVisible);
  const onChannel = () => void refresh();
  channel?.addEventListener("message", onChannel);
  return () => {
    clearInterval(poll);
    document.removeEventListener("visibilitychange", onVisible);
    channel?.removeEventListener("message", onChannel);
  };
}
