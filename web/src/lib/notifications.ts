// Browser notifications, opt-in: when the user turned them on (and the browser allowed them), work
// that finishes while the tab is in the background says so (what finished: lib/notices.ts).

import { notificationsOn, permission, type Notice } from "./notices";
import { navigate, threadPath } from "./router";

/** Shows `notice` if notifications are on and allowed and the tab is in the background. */
export function notify(notice: Notice | null): void {
  if (!notice || !notificationsOn.get() || permission() !== "granted" || document.visibilityState !== "hidden") return;
  try {
    const n = new Notification(notice.title, { body: notice.body, tag: notice.tag });
    n.onclick = () => {
      window.focus();
      navigate(threadPath(notice.threadId));
      n.close();
    };
  } catch {
    /* a browser that only notifies from a service worker: nothing to show */
  }
}
