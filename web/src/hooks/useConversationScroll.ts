// The conversation's scrolling: it follows the newest content while the reader is at the bottom,
// stays put when they scrolled up (offering a jump to the latest), keeps its place when older pages
// load above, and brings a message jumped to into view.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import type { TimelineItem } from "../lib/timeline";
import type { Highlight } from "./useJumpToMessage";

const NEAR_BOTTOM_PX = 96;
const HIGHLIGHT_MS = 2_500;

/** `onLoadOlder` asks for the previous page; the hook's `loadOlder` does so keeping the reader's place. */
export function useConversationScroll(items: readonly TimelineItem[], highlight: Highlight | null | undefined, onLoadOlder: () => void) {
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const [showJump, setShowJump] = useState(false);
  const firstKey = useRef<string | undefined>(undefined);
  const heightBefore = useRef(0);

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM_PX;
    pinned.current = atBottom;
    setShowJump(!atBottom);
  }, []);

  const loadOlder = () => {
    heightBefore.current = scroller.current?.scrollHeight ?? 0;
    onLoadOlder();
  };

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const newFirst = items[0]?.key;
    const prepended = firstKey.current !== undefined && newFirst !== firstKey.current && heightBefore.current > 0;
    firstKey.current = newFirst;
    if (prepended) {
      el.scrollTop += el.scrollHeight - heightBefore.current;
      heightBefore.current = 0;
    } else if (pinned.current) {
      el.scrollTop = el.scrollHeight;
    }
  }, [items]);

  // Content that grows by itself, not by a new item (a research's card as its tasks report, an image
  // that loads), is followed too while the reader is at the bottom.
  useEffect(() => {
    const el = scroller.current;
    const content = el?.firstElementChild;
    if (!el || !content || typeof ResizeObserver === "undefined") return;
    const follow = new ResizeObserver(() => {
      if (pinned.current) el.scrollTop = el.scrollHeight;
    });
    follow.observe(content);
    return () => follow.disconnect();
  }, []);

  // The message is scrolled to the middle and marked; the list stops following the newest content,
  // and the focus moves to it so that a screen reader reads it.
  useEffect(() => {
    if (!highlight) return;
    const el = scroller.current?.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(highlight.messageId)}"]`);
    if (!el) return;
    pinned.current = false;
    el.scrollIntoView({ block: "center" });
    el.setAttribute("data-highlight", "");
    el.tabIndex = -1;
    el.focus({ preventScroll: true });
    const timer = setTimeout(() => el.removeAttribute("data-highlight"), HIGHLIGHT_MS);
    return () => {
      clearTimeout(timer);
      el.removeAttribute("data-highlight");
    };
  }, [highlight]);

  const jumpToLatest = () => {
    const el = scroller.current;
    if (!el) return;
    pinned.current = true;
    setShowJump(false);
    el.scrollTo({ top: el.scrollHeight, behavior: "smooth" });
  };

  return { scroller, onScroll, loadOlder, showJump, jumpToLatest };
}
