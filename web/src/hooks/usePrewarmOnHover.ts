import { useEffect, useRef } from "react";
import { prewarmThread } from "../lib/prewarm";

/** A pointer that rests this long on a thread means the person may open it; passing over does not. */
const HOVER_MS = 150;

/** Handlers for a thread's link in the sidebar: hovering it (or focusing it) warms the thread up. */
export function usePrewarmOnHover(threadId: string) {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const cancel = () => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
  };
  useEffect(() => cancel, []);
  return {
    onPointerEnter: () => {
      cancel();
      timer.current = setTimeout(() => prewarmThread(threadId), HOVER_MS);
    },
    onPointerLeave: cancel,
    onFocus: () => prewarmThread(threadId),
  };
}
