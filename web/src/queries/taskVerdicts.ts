// The validator's latest verdict on each task, as task:evaluated reported it. Tasks as listed carry
// no verdict, so this lives only in the page's cache: filled live, gone after a reload.

import type { EventMap } from "@protocol";
import { useQuery, type QueryClient } from "@tanstack/react-query";

export interface TaskVerdict {
  accepted: boolean;
  /** Who judged: "validator (claude-haiku-4-5)", "validator (offline rule)", "delegation". */
  by?: string;
  /** Why a result was rejected. */
  feedback?: string;
  /** The iteration judged. */
  iteration: number;
  at: number;
}

type Verdicts = Record<string, TaskVerdict>;

const verdictsKey = ["taskVerdicts"] as const;

/** Records a task:evaluated; an older report never replaces a newer one. */
export function putVerdict(qc: QueryClient, data: EventMap["task:evaluated"], at: number): void {
  // Kept for the page's life, whether or not a task strip shows it now.
  qc.setQueryDefaults(verdictsKey, { gcTime: Infinity, staleTime: Infinity });
  const { task, accepted, by, feedback } = data;
  qc.setQueryData<Verdicts>(verdictsKey, (all = {}) => {
    const known = all[task.id];
    if (known && (known.iteration > task.currentIteration || known.at > at)) return all;
    return { ...all, [task.id]: { accepted, by, feedback, iteration: task.currentIteration, at } };
  });
}

/** The latest verdict on a task, if this page saw one. */
export function useTaskVerdict(taskId: string): TaskVerdict | undefined {
  // Never fetched: the cache is written by putVerdict only.
  const { data } = useQuery<Verdicts>({ queryKey: verdictsKey, queryFn: () => ({}), enabled: false });
  return data?.[taskId];
}
