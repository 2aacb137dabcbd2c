import { useMemo, useSyncExternalStore } from "react";
import { outbox, type OutboxItem } from "../lib/outbox";

/** The thread's messages that are sent but not yet acknowledged, oldest first. */
export function usePendingMessages(threadId: string | null): OutboxItem[] {
  const items = useSyncExternalStore(outbox.subscribe, outbox.getSnapshot);
  return useMemo(() => (threadId ? items.filter((i) => i.threadId === threadId) : []), [items, threadId]);
}
