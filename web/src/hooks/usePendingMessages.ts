import { useMemo, useSyncExternalStore } from "react";
import type { OutboxItem } from "../lib/outbox";
import { useSession } from "../session/SessionGate";

/** The thread's messages that are sent but not yet acknowledged, oldest first. */
export function usePendingMessages(threadId: string | null): readonly OutboxItem[] {
  const { outbox } = useSession();
  const items = useSyncExternalStore(outbox.subscribe, outbox.getSnapshot);
  return useMemo(() => (threadId ? items.filter((i) => i.threadId === threadId) : []), [items, threadId]);
}
