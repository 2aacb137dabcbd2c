import type { Thread } from "@protocol";
import { useEffect, useRef } from "react";
import { browserTimeZone } from "../lib/timeZone";
import { usePatchThread } from "../queries/threadMutations";

/**
 * An opened thread whose timezone is not the browser's (none yet: a thread made before threads had
 * one, or by a script; another: made elsewhere) gets the browser's. `thread` must be the thread's own
 * answer (GET /api/threads/:id): the list's copy carries no timezone. Tried once per thread and page;
 * a failure is left silent (the thread keeps the one it had, or UTC).
 */
export function useThreadTimeZone(thread: Thread | undefined) {
  const { mutate } = usePatchThread();
  const tried = useRef(new Set<string>());
  const id = thread?.id;
  const current = thread?.timezone;
  useEffect(() => {
    const timezone = browserTimeZone();
    if (!id || !timezone || current === timezone || tried.current.has(id)) return;
    tried.current.add(id);
    mutate({ id, timezone });
  }, [id, current, mutate]);
}
