// Which threads have news the user has not seen: a thread is unread when its lastActivity (as the
// user's object lists it) passed the lastActivity this browser saw while the thread was open. The
// record is kept in the user's storage, shared by their tabs; threads never opened count from
// `since`, when this browser started keeping it, so that older threads do not all light up at once.

import type { Thread } from "@protocol";

export interface SeenRecord {
  /** When this browser started keeping the record (epoch ms). */
  since: number;
  /** Thread id → the lastActivity seen while it was open. */
  threads: Record<string, number>;
}

/** Threads remembered at most (the least recently active are forgotten first). */
export const SEEN_MAX = 500;

export function parseSeen(raw: string | null, now: number): SeenRecord {
  try {
    const value = raw ? (JSON.parse(raw) as Partial<SeenRecord>) : null;
    if (value && typeof value.since === "number" && value.threads && typeof value.threads === "object") {
      const threads: Record<string, number> = {};
      for (const [id, at] of Object.entries(value.threads)) if (typeof at === "number") threads[id] = at;
      return { since: value.since, threads };
    }
  } catch {
    /* a record that is not one starts again */
  }
  return { since: now, threads: {} };
}

export function isUnread(t: Pick<Thread, "id" | "lastActivity" | "createdAt">, seen: SeenRecord, activeId: string | null): boolean {
  if (t.id === activeId) return false;
  // A thread nothing happened in since it was made (one just created here) has no news.
  return t.lastActivity > Math.max(seen.threads[t.id] ?? seen.since, t.createdAt);
}

/** The record with `id` seen at `at`; the same object when that is no news to it. */
export function withSeen(seen: SeenRecord, id: string, at: number): SeenRecord {
  if ((seen.threads[id] ?? -Infinity) >= at) return seen;
  let entries = Object.entries({ ...seen.threads, [id]: at });
  if (entries.length > SEEN_MAX) entries = entries.sort((a, b) => b[1] - a[1]).slice(0, SEEN_MAX);
  return { since: seen.since, threads: Object.fromEntries(entries) };
}

/** Two tabs' records as one: the earliest start, and the latest sight of each thread. */
export function mergeSeen(a: SeenRecord, b: SeenRecord): SeenRecord {
  let merged: SeenRecord = { since: Math.min(a.since, b.since), threads: { ...a.threads } };
  for (const [id, at] of Object.entries(b.threads)) merged = withSeen(merged, id, at);
  return merged;
}

export function sameSeen(a: SeenRecord, b: SeenRecord): boolean {
  const ka = Object.keys(a.threads);
  return a.since === b.since && ka.length === Object.keys(b.threads).length && ka.every((id) => a.threads[id] === b.threads[id]);
}

/** A thread as a list showed it, to compare the next list with. */
export interface ListedThread {
  lastActivity: number;
  status: Thread["status"];
  /** How many of its tool calls waited for the user's approval. */
  waiting: number;
}

/**
 * The threads of `threads` whose activity moved on, whose status changed, or which wait for more
 * approvals, since `before` listed them (threads new to the list are not: nothing to compare them
 * with), but the open one.
 */
export function movedOn(before: ReadonlyMap<string, ListedThread>, threads: Thread[], activeId: string | null): { thread: Thread; was: ListedThread }[] {
  const moved: { thread: Thread; was: ListedThread }[] = [];
  for (const t of threads) {
    const was = before.get(t.id);
    const waiting = t.pendingApprovals?.length ?? 0;
    if (was && t.id !== activeId && (t.lastActivity > was.lastActivity || t.status !== was.status || waiting > was.waiting)) moved.push({ thread: t, was });
  }
  return moved;
}

export const listed = (threads: Thread[]): Map<string, ListedThread> =>
  new Map(threads.map((t) => [t.id, { lastActivity: t.lastActivity, status: t.status, waiting: t.pendingApprovals?.length ?? 0 }]));
