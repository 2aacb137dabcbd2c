import { useMemo } from "react";
import type { OutboxItem } from "../lib/outbox";
import { useStore } from "../lib/store";
import { useSession } from "../session/SessionGate";

/** The thread's messages that are sent but not yet acknowledged, oldest first. */
export function usePendingMessages(threadId: string | null): readonly OutboxItem[] {
  const { outbox } = useSession();
  const items = useStore(outbox.items);
  return useMemo(() => (threadId ? items.filter((i) => i.threadId === threadId) : []), [items, threadId]);
}
