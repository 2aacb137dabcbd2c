import type { BodyOf, Thread } from "@protocol";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { request } from "../api";
import { browserTimeZone } from "../lib/timeZone";
import { announceThreadsChanged, dropThread, putThread } from "./threads";

/** A thread created or changed here: every view of it in this tab, and the other tabs, see it. */
function useShowSavedThread() {
  const qc = useQueryClient();
  return (thread: Thread) => {
    putThread(qc, thread);
    announceThreadsChanged();
  };
}

/** Every new thread carries the browser's timezone: the model reads "tomorrow at 9" in it. */
export function useCreateThread() {
  const showSaved = useShowSavedThread();
  return useMutation({
    mutationFn: (body: BodyOf<"POST /api/threads">) => {
      const timezone = browserTimeZone();
      return request("POST /api/threads", { body: { ...(timezone ? { timezone } : {}), ...body } }).then((r) => r.thread);
    },
    onSuccess: showSaved,
  });
}

export function usePatchThread() {
  const showSaved = useShowSavedThread();
  return useMutation({
    mutationFn: ({ id, ...body }: { id: string } & BodyOf<"PATCH /api/threads/:id">) =>
      request("PATCH /api/threads/:id", { params: { id }, body }).then((r) => r.thread),
    onSuccess: showSaved,
  });
}

export function useDeleteThread() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request("DELETE /api/threads/:id", { params: { id } }),
    onSuccess: (_, id) => {
      dropThread(qc, id);
      announceThreadsChanged();
    },
  });
}
