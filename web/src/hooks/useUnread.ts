import type { Thread } from "@protocol";
import { useEffect, useMemo, useState } from "react";
import { isUnread, mergeSeen, parseSeen, sameSeen, withSeen, type SeenRecord } from "../lib/unread";
import { useThread } from "../queries/threads";
import { useSession } from "../session/SessionGate";

const KEY = "seen";

/**
 * The threads of the sidebar with news the user has not seen (lib/unread.ts). The open thread is
 * seen, up to the newest lastActivity the list, its own answer or its socket shows for it; the record
 * is the user's, in their storage, and every tab of theirs adds to it.
 */
export function useUnread(threads: Thread[], activeId: string | null): ReadonlySet<string> {
  const { storage } = useSession();
  const [seen, setSeen] = useState<SeenRecord>(() => parseSeen(storage.get(KEY), Date.now()));

  // Kept from the first load on: the threads that were there then count as seen.
  useEffect(() => {
    if (storage.get(KEY) === null) storage.set(KEY, JSON.stringify(seen));
    // Once per user's storage.
  }, [storage]);

  // Another tab saw a thread.
  useEffect(() => {
    const onStorage = () =>
      setSeen((mine) => {
        const merged = mergeSeen(mine, parseSeen(storage.get(KEY), mine.since));
        return sameSeen(merged, mine) ? mine : merged;
      });
    window.addEventListener("storage", onStorage);
    return () => window.removeEventListener("storage", onStorage);
  }, [storage]);

  // The open thread's own answer (the chat reads it too) may be newer than the list's last refresh.
  const own = useThread(activeId).data?.lastActivity;
  const listedAt = threads.find((t) => t.id === activeId)?.lastActivity;
  const activeAt = own === undefined ? listedAt : Math.max(own, listedAt ?? own);
  useEffect(() => {
    if (!activeId || activeAt === undefined) return;
    const next = withSeen(seen, activeId, activeAt);
    if (next === seen) return;
    const merged = mergeSeen(next, parseSeen(storage.get(KEY), next.since));
    storage.set(KEY, JSON.stringify(merged));
    setSeen(merged);
  }, [activeId, activeAt, seen, storage]);

  return useMemo(() => new Set(threads.filter((t) => isUnread(t, seen, activeId)).map((t) => t.id)), [threads, seen, activeId]);
}
