// The user's threads in the query cache: the list (pages of GET /api/threads), the archived ones,
// and each thread. Socket events and mutations write through putThread / touchThread /
// dropThread, so that every view of a thread agrees; other tabs hear of changes on a
// BroadcastChannel and refetch.

import type { ResponseOf, Thread } from "@protocol";
import {
  infiniteQueryOptions,
  queryOptions,
  useInfiniteQuery,
  useQuery,
  useQueryClient,
  type InfiniteData,
  type QueryClient,
} from "@tanstack/react-query";
import { useMemo } from "react";
import { request } from "../api";
import { notificationsOn } from "../lib/notices";

const PAGE = 50;
const ARCHIVED_LIMIT = 200;
/**
 * The list is how the sidebar learns of work done in other threads (a schedule's run, a task's end:
 * unread dots): read again every 12 s while the tab is visible, and on focus. In the background only
 * when notifications are on, and then once a minute.
 */
const POLL_MS = 12_000;
const BACKGROUND_POLL_MS = 60_000;

const listPollMs = () =>
  typeof document === "undefined" || document.visibilityState === "visible" ? POLL_MS : notificationsOn.get() ? BACKGROUND_POLL_MS : false;

type ThreadPage = ResponseOf<"GET /api/threads">;

export const threadKeys = {
  all: ["threads"] as const,
  list: ["threads", "list"] as const,
  archived: ["threads", "archived"] as const,
  one: (id: string) => ["threads", "one", id] as const,
};

/** Threads not archived, newest activity first, a page at a time. */
const threadListQuery = infiniteQueryOptions({
  queryKey: threadKeys.list,
  queryFn: ({ pageParam, signal }) =>
    request("GET /api/threads", { query: { limit: PAGE, cursor: pageParam }, signal }),
  initialPageParam: undefined as string | undefined,
  getNextPageParam: (last) => last.nextCursor,
  refetchInterval: listPollMs,
  refetchIntervalInBackground: true,
});

/** The server lists archived threads only when asked for them. */
const archivedThreadsQuery = queryOptions({
  queryKey: threadKeys.archived,
  queryFn: ({ signal }) =>
    request("GET /api/threads", { query: { status: "archived", limit: ARCHIVED_LIMIT }, signal }).then((r) => r.threads),
});

export const threadQuery = (id: string) =>
  queryOptions({
    queryKey: threadKeys.one(id),
    queryFn: ({ signal }) => request("GET /api/threads/:id", { params: { id }, signal }).then((r) => r.thread),
  });

// ---------- Writing to the cache ----------

function mapPages(data: InfiniteData<ThreadPage> | undefined, fn: (threads: Thread[], index: number) => Thread[]) {
  if (!data) return data;
  return { ...data, pages: data.pages.map((page, i) => ({ ...page, threads: fn(page.threads, i) })) };
}

const without = (threads: Thread[], id: string) => threads.filter((t) => t.id !== id);

/** Records a thread as the server now has it (an answer, or a thread:updated event). */
export function putThread(qc: QueryClient, thread: Thread): void {
  qc.setQueryData(threadQuery(thread.id).queryKey, thread);
  const archived = thread.status === "archived";
  const inList = !!qc.getQueryData(threadListQuery.queryKey)?.pages.some((p) => p.threads.some((t) => t.id === thread.id));
  qc.setQueryData(threadListQuery.queryKey, (data) =>
    mapPages(data, (threads, i) => {
      if (archived) return without(threads, thread.id);
      if (inList) return threads.map((t) => (t.id === thread.id ? thread : t));
      return i === 0 ? [thread, ...threads] : threads;
    }),
  );
  qc.setQueryData(archivedThreadsQuery.queryKey, (threads) => threads && (archived ? [thread, ...without(threads, thread.id)] : without(threads, thread.id)));
}

/** Activity seen on a thread's socket: the list reorders without waiting for its next poll. */
export function touchThread(qc: QueryClient, id: string, at: number): void {
  const bump = (t: Thread) => (t.id === id && at > t.lastActivity ? { ...t, lastActivity: at } : t);
  qc.setQueryData(threadQuery(id).queryKey, (t) => t && bump(t));
  qc.setQueryData(threadListQuery.queryKey, (data) => mapPages(data, (threads) => threads.map(bump)));
}

/**
 * A change to one thread's fields seen on its socket (not a whole thread from the server), in every
 * cache that holds it. `update` answers the same thread when nothing changes: nothing is written then.
 */
export function updateThread(qc: QueryClient, id: string, update: (t: Thread) => Thread): void {
  const one = qc.getQueryData(threadQuery(id).queryKey);
  const next = one && update(one);
  if (next && next !== one) qc.setQueryData(threadQuery(id).queryKey, next);
  let changed = false;
  const list = mapPages(qc.getQueryData(threadListQuery.queryKey), (threads) =>
    threads.map((t) => {
      if (t.id !== id) return t;
      const updated = update(t);
      changed ||= updated !== t;
      return updated;
    }),
  );
  if (list && changed) qc.setQueryData(threadListQuery.queryKey, list);
}

export function dropThread(qc: QueryClient, id: string): void {
  qc.removeQueries({ queryKey: threadKeys.one(id) });
  qc.setQueryData(threadListQuery.queryKey, (data) => mapPages(data, (threads) => without(threads, id)));
  qc.setQueryData(archivedThreadsQuery.queryKey, (threads) => threads && without(threads, id));
}

// ---------- Other tabs ----------

const channel = typeof BroadcastChannel !== "undefined" ? new BroadcastChannel("orchestrator.threads") : null;

/** Tells this app's other tabs that the threads changed. */
export function announceThreadsChanged(): void {
  channel?.postMessage({ type: "changed" });
}

/** Refetches the threads when another tab announces a change; returns the unsubscribe. */
export function followOtherTabs(qc: QueryClient): () => void {
  const onMessage = () => void qc.invalidateQueries({ queryKey: threadKeys.all });
  channel?.addEventListener("message", onMessage);
  return () => channel?.removeEventListener("message", onMessage);
}

// ---------- Hooks ----------

/** The sidebar's threads: the loaded pages of the list, and the archived ones when shown. */
export function useThreadList(showArchived: boolean) {
  const list = useInfiniteQuery(threadListQuery);
  const archived = useQuery({ ...archivedThreadsQuery, enabled: showArchived });
  const threads = useMemo(() => {
    const byId = new Map<string, Thread>();
    for (const page of list.data?.pages ?? []) for (const t of page.threads) byId.set(t.id, t);
    if (showArchived) for (const t of archived.data ?? []) byId.set(t.id, t);
    return [...byId.values()];
  }, [list.data, archived.data, showArchived]);
  return { threads, list };
}

/** One thread; while it loads, the copy the lists hold (if any) stands in. */
export function useThread(id: string | null) {
  const qc = useQueryClient();
  return useQuery({
    ...threadQuery(id ?? ""),
    enabled: id !== null,
    placeholderData: () =>
      qc
        .getQueryData(threadListQuery.queryKey)
        ?.pages.flatMap((p) => p.threads)
        .find((t) => t.id === id),
  });
}
