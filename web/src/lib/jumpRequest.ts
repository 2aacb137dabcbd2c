// "Show me this message": the search palette asks, the thread's chat view answers (it loads older
// pages or switches branch until the message is on screen). Kept in memory: a jump is a moment's
// intention, not a place to come back to.
import type { Message } from "@protocol";
import { mayBeOlderOnBranch } from "./branches";
import { createStore, useStore } from "./store";

export interface JumpRequest {
  threadId: string;
  messageId: string;
  /** The user message whose branch holds it (switched to when it is not on the current one). */
  branchTo: string | null;
  createdAt: number;
}

const current = createStore<JumpRequest | null>(null);

export function requestJump(request: JumpRequest): void {
  current.set(request);
}

/** Done (or given up): only the request that was handled is cleared, not a newer one. */
export function finishJump(request: JumpRequest): void {
  if (current.get() === request) current.set(null);
}

/** The jump asked for in this thread, if any. */
export function useJumpRequest(threadId: string | null): JumpRequest | null {
  const request = useStore(current);
  return request && request.threadId === threadId ? request : null;
}

/** How far one jump has gone: older pages loaded, and whether its branch was switched to. */
export interface JumpProgress {
  pages: number;
  switched: boolean;
}

export type JumpStep =
  | { do: "show" }
  | { do: "loadOlder" }
  | { do: "switch"; to: string }
  | { do: "giveUp"; why: string };

/** Pages loaded looking for one message before giving up (each holds MESSAGE_PAGE messages). */
export const MAX_JUMP_PAGES = 30;

/**
 * What to do next for a jump, given the branch shown: show the message once it is there; load older
 * pages while it may be among them; else switch to its branch (once); else give up.
 */
export function nextJumpStep(
  request: JumpRequest,
  shown: { ids: ReadonlySet<string>; messages: readonly Message[]; hasOlder: boolean; running: boolean },
  progress: JumpProgress,
): JumpStep {
  if (shown.ids.has(request.messageId)) return { do: "show" };
  if (mayBeOlderOnBranch(request.createdAt, shown.messages, shown.hasOlder) && progress.pages < MAX_JUMP_PAGES) return { do: "loadOlder" };
  if (!progress.switched && request.branchTo) {
    if (shown.running) return { do: "giveUp", why: "That message is on another branch: switch to it once the reply has finished." };
    return { do: "switch", to: request.branchTo };
  }
  return { do: "giveUp", why: "That message is no longer in this thread." };
}
