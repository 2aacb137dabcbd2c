// Tasks in the query cache, one list per filter (the tasks page's status, a thread's strip).
// task:* events and cancellations write through putTask, into every list the task belongs to.

import type { Task, TaskStatus } from "@protocol";
import { queryOptions, useMutation, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { request } from "../api";

export interface TaskFilter {
  /** A thread's own task and the tasks it delegated (the server matches threadId or parentThreadId). */
  threadId?: string;
  status?: TaskStatus;
}

export const ACTIVE_TASK: ReadonlySet<TaskStatus> = new Set(["pending", "running", "evaluating"]);

const taskKeys = {
  all: ["tasks"] as const,
  list: (filter: TaskFilter) => ["tasks", filter] as const,
};

export const tasksQuery = (filter: TaskFilter, pollMs?: number) =>
  queryOptions({
    queryKey: taskKeys.list(filter),
    queryFn: ({ signal }) => request("GET /api/tasks", { query: filter, signal }).then((r) => r.tasks),
    refetchInterval: pollMs,
  });

export function matchesFilter(filter: TaskFilter, task: Task): boolean {
  if (filter.status && task.status !== filter.status) return false;
  if (filter.threadId && task.threadId !== filter.threadId && task.parentThreadId !== filter.threadId) return false;
  return true;
}

/**
 * A list with `task` as now reported. An older copy never replaces a newer one (task:stream carries
 * the task as it was when its run began); a task that no longer matches the list's filter leaves it.
 */
export function withTask(tasks: Task[], task: Task, filter: TaskFilter): Task[] {
  const known = tasks.find((t) => t.id === task.id);
  if (known && known.updatedAt > task.updatedAt) return tasks;
  const others = tasks.filter((t) => t.id !== task.id);
  if (!matchesFilter(filter, task)) return others;
  return known ? tasks.map((t) => (t.id === task.id ? task : t)) : [task, ...others];
}

export function putTask(qc: QueryClient, task: Task): void {
  for (const query of qc.getQueryCache().findAll({ queryKey: taskKeys.all })) {
    const filter = query.queryKey[1] as TaskFilter;
    qc.setQueryData<Task[]>(query.queryKey, (tasks) => tasks && withTask(tasks, task, filter));
  }
}

export function useCancelTask() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request("POST /api/tasks/:id/cancel", { params: { id } }).then((r) => r.task),
    onSuccess: (task) => putTask(qc, task),
  });
}
