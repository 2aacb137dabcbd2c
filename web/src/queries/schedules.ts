// Schedules in the query cache: a thread's (its settings) and all of the user's (the Scheduled
// page). A change made here, and a fire heard on a thread's socket, reload both.

import type { BodyOf, ScheduleBody } from "@protocol";
import { queryOptions, useMutation, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { request } from "../api";

const POLL_MS = 15_000;

export const scheduleKeys = {
  all: ["schedules"] as const,
  mine: ["schedules", "mine"] as const,
  thread: (threadId: string) => ["schedules", "thread", threadId] as const,
};

export const threadSchedulesQuery = (threadId: string) =>
  queryOptions({
    queryKey: scheduleKeys.thread(threadId),
    queryFn: ({ signal }) => request("GET /api/threads/:id/schedules", { params: { id: threadId }, signal }).then((r) => r.schedules),
  });

/** All of the user's schedules, soonest first (as the server orders them). */
export const mySchedulesQuery = queryOptions({
  queryKey: scheduleKeys.mine,
  queryFn: ({ signal }) => request("GET /api/schedules", { signal }).then((r) => r.schedules),
  refetchInterval: POLL_MS,
});

/** A schedule changed or fired: the lists that show schedules read them again. */
export function schedulesChanged(qc: QueryClient): void {
  void qc.invalidateQueries({ queryKey: scheduleKeys.all });
}

export function useCreateSchedule(threadId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: BodyOf<"POST /api/threads/:id/schedules">) =>
      request("POST /api/threads/:id/schedules", { params: { id: threadId }, body }).then((r) => r.schedule),
    onSuccess: () => schedulesChanged(qc),
  });
}

export function useUpdateSchedule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: ScheduleBody }) =>
      request("PATCH /api/schedules/:scheduleId", { params: { scheduleId: id }, body }).then((r) => r.schedule),
    onSuccess: () => schedulesChanged(qc),
  });
}

export function useDeleteSchedule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request("DELETE /api/schedules/:scheduleId", { params: { scheduleId: id } }),
    onSuccess: () => schedulesChanged(qc),
  });
}
