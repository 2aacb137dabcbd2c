// Answers a jump request (lib/jumpRequest.ts) for the open thread: loads older pages while the message
// may be among them, switches to its branch when it is on another one, then names it to be shown.
import { useEffect, useRef, useState } from "react";
import { mayBeOlderOnBranch } from "../lib/branches";
import type { ChatState } from "../lib/chatState";
import { finishJump, useJumpRequest, type JumpRequest } from "../lib/jumpRequest";

/** Pages loaded looking for one message before giving up (each holds MESSAGE_PAGE messages). */
const MAX_PAGES = 30;

export interface Highlight {
  messageId: string;
  /** Tells apart two jumps to the same message. */
  at: number;
}

export function useJumpToMessage(
  threadId: string | null,
  state: ChatState,
  chat: { loadOlder: () => Promise<void>; switchTo: (messageId: string) => Promise<boolean>; switching: boolean },
  onGiveUp: (why: string) => void,
): Highlight | null {
  const request = useJumpRequest(threadId);
  const [highlight, setHighlight] = useState<Highlight | null>(null);
  const progress = useRef<{ request: JumpRequest; pages: number; switched: boolean } | null>(null);
  const { loadOlder, switchTo, switching } = chat;

  useEffect(() => {
    if (!request || state.load !== "ready" || state.loadingOlder || switching) return;
    if (progress.current?.request !== request) progress.current = { request, pages: 0, switched: false };
    const p = progress.current;
    const giveUp = (why: string) => {
      onGiveUp(why);
      finishJump(request);
    };

    if (state.ids.has(request.messageId)) {
      setHighlight({ messageId: request.messageId, at: Date.now() });
      finishJump(request);
    } else if (mayBeOlderOnBranch(request.createdAt, state.messages, state.hasOlder) && p.pages < MAX_PAGES) {
      p.pages++;
      void loadOlder();
    } else if (!p.switched && request.branchTo) {
      p.switched = true;
      if (state.running) giveUp("That message is on another branch: switch to it once the reply has finished.");
      else void switchTo(request.branchTo).then((ok) => ok || finishJump(request));
    } else {
      giveUp("That message is no longer in this thread.");
    }
  }, [request, state, switching, loadOlder, switchTo, onGiveUp]);

  return highlight;
}
