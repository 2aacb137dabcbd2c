import { useLayoutEffect, type RefObject } from "react";

/** A textarea that grows with its text up to `maxHeight` pixels, and scrolls beyond. */
export function useAutosize(textarea: RefObject<HTMLTextAreaElement | null>, value: string, maxHeight: number): void {
  useLayoutEffect(() => {
    const el = textarea.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = Math.min(el.scrollHeight, maxHeight) + "px";
  }, [textarea, value, maxHeight]);
}
