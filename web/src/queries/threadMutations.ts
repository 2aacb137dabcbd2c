import type { BodyOf } from "@protocol";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { request } from "../api";
import { announceThreadsChanged, dropThread, putThread } from "./threads";

export function useCreateThread() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: BodyOf<"POST /api/threads">) => request("POST /api/threads", { body }).then((r) => r.thread),
    onSuccess: (thread) => {
      putThread(qc, thread);
      announceThreadsChanged();
    },
  });
}

export function usePatchThread() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...body }: { id: string } & BodyOf<"PATCH /api/threads/:id">) =>
      request("PATCH /api/threads/:id", { params: { id }, body }).then((r) => r.thread),
    onSuccess: (thread) => {
      putThread(qc, thread);
      announceThreadsChanged();
    },
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
