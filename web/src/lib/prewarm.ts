// POST /api/prewarm loads a thread's object state before the person sends anything, so that the
// first message's answer starts sooner. It is a hint: sent when a thread is opened or hovered in the
// sidebar, at most once per thread in a while, never awaited, its failures ignored.

import { request } from "../api";

/** A thread warmed this recently is not warmed again. */
export const PREWARM_EVERY_MS = 30_000;

/** A prewarm function over `send`: answers whether it sent one. */
export function createPrewarmer(send: (threadId: string) => Promise<unknown>, now: () => number = Date.now) {
  const last = new Map<string, number>();
  return (threadId: string): boolean => {
    const at = now();
    const before = last.get(threadId);
    if (before !== undefined && at - before < PREWARM_EVERY_MS) return false;
    last.set(threadId, at);
    try {
      send(threadId).catch(() => {});
    } catch {
      /* a hint only */
    }
    return true;
  };
}

export const prewarmThread = createPrewarmer((threadId) => request("POST /api/prewarm", { body: { threadId } }));
