// Answers a jump request (lib/jumpRequest.ts) for the open thread, one step per change of what is
// shown: load an older page, switch to the message's branch, or name the message to be shown.
import { useEffect, useRef, useState } from "react";
import type { ChatState } from "../lib/chatState";
import { finishJump, nextJumpStep, useJumpRequest, type JumpProgress, type JumpRequest } from "../lib/jumpRequest";

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
  const progress = useRef<{ request: JumpRequest } & JumpProgress>(null);
  const { loadOlder, switchTo, switching } = chat;

  useEffect(() => {
    // One step at a time: wait while a page or a branch is on its way.
    if (!request || state.load !== "ready" || state.loadingOlder || switching) return;
    if (progress.current?.request !== request) progress.current = { request, pages: 0, switched: false };
    const p = progress.current;
    const step = nextJumpStep(request, { ...state, running: state.running !== null }, p);
    switch (step.do) {
      case "show":
        setHighlight({ messageId: request.messageId, at: Date.now() });
        finishJump(request);
        break;
      case "loadOlder":
        p.pages++;
        void loadOlder();
        break;
      case "switch":
        p.switched = true;
        void switchTo(step.to).then((ok) => ok || finishJump(request));
        break;
      case "giveUp":
        onGiveUp(step.why);
        finishJump(request);
        break;
    }
  }, [request, state, switching, loadOlder, switchTo, onGiveUp]);

  return highlight;
}
