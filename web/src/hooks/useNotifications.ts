import type { Thread } from "@protocol";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { listNotice, notificationsOn, permission, type Permission } from "../lib/notices";
import { notify } from "../lib/notifications";
import { useStore } from "../lib/store";
import { listed, movedOn, type ListedThread } from "../lib/unread";
import { mySchedulesQuery } from "../queries/schedules";
import { useSession } from "../session/SessionGate";

const KEY = "notifications";

/**
 * The user's choice of browser notifications: on only once they asked for them and the browser
 * allowed them. `enable` asks the browser (it asks the user once; after a refusal only its own
 * settings can change that).
 */
export function useNotificationSetting() {
  const { storage } = useSession();
  const on = useStore(notificationsOn);
  const [allowed, setAllowed] = useState<Permission>(permission);

  useEffect(() => {
    notificationsOn.set(storage.get(KEY) === "on" && permission() === "granted");
  }, [storage]);

  const enable = useCallback(async () => {
    let answer = permission();
    if (answer === "default") answer = await Notification.requestPermission();
    setAllowed(answer);
    if (answer !== "granted") return;
    storage.set(KEY, "on");
    notificationsOn.set(true);
  }, [storage]);

  const disable = useCallback(() => {
    storage.remove(KEY);
    notificationsOn.set(false);
  }, [storage]);

  return { on, permission: allowed, enable, disable };
}

/**
 * Each refresh of the thread list, compared with the one before: a thread other than the open one
 * that moved on while the tab is in the background may be worth a notice (lib/notices.ts).
 * Whether one of its schedules fired is asked of GET /api/schedules then, once per refresh at most.
 */
export function useListNotices(threads: Thread[], activeId: string | null) {
  const qc = useQueryClient();
  const before = useRef<Map<string, ListedThread> | null>(null);
  useEffect(() => {
    const previous = before.current;
    before.current = listed(threads);
    if (!previous || !notificationsOn.get() || document.visibilityState !== "hidden") return;
    const moved = movedOn(previous, threads, activeId);
    if (moved.length === 0) return;
    const needSchedules = moved.some(({ thread }) => thread.kind !== "task");
    void (needSchedules ? qc.fetchQuery({ ...mySchedulesQuery, staleTime: 5_000 }).catch(() => undefined) : Promise.resolve(undefined)).then(
      (schedules) => moved.forEach(({ thread, was }) => notify(listNotice(thread, was, schedules))),
    );
  }, [threads, activeId, qc]);
}
