// "Show me this message": the search palette asks, the thread's chat view answers (it loads older
// pages or switches branch until the message is on screen). Kept in memory: a jump is a moment's
// intention, not a place to come back to.
import { useSyncExternalStore } from "react";

export interface JumpRequest {
  threadId: string;
  messageId: string;
  /** The user message whose branch holds it (switched to when it is not on the current one). */
  branchTo: string | null;
  createdAt: number;
}

let current: JumpRequest | null = null;
const listeners = new Set<() => void>();

export function requestJump(request: JumpRequest): void {
  current = request;
  listeners.forEach((l) => l());
}

/** Done (or given up): only the request that was handled is cleared, not a newer one. */
export function finishJump(request: JumpRequest): void {
  if (current !== request) return;
  current = null;
  listeners.forEach((l) => l());
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The jump asked for in this thread, if any. */
export function useJumpRequest(threadId: string | null): JumpRequest | null {
  const request = useSyncExternalStore(subscribe, () => current);
  return request && request.threadId === threadId ? request : null;
}
