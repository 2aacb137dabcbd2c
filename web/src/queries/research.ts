// Research in the query cache, one entry per research: read once by its card, then kept current by
// the thread's research:updated frames (queries/threadEvents.ts), and by the answers of the card's
// own calls (plan, stop). A read never undoes a newer frame (lib/research.ts, laterResearch).

import type { EventFrame, Research, StartResearchBody } from "@protocol";
import { queryOptions, useMutation, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useCallback, useMemo, useRef, useSyncExternalStore } from "react";
import { request } from "../api";
import { laterResearch } from "../lib/research";

const researchKeys = {
  thread: (threadId: string) => ["research", threadId] as const,
  one: (threadId: string, researchId: string) => ["research", threadId, researchId] as const,
};

export const researchQuery = (threadId: string, researchId: string) =>
  queryOptions({
    queryKey: researchKeys.one(threadId, researchId),
    queryFn: async ({ client, queryKey, signal }): Promise<Research> => {
      const { research } = await request("GET /api/threads/:id/research/:researchId", { params: { id: threadId, researchId }, signal });
      // A frame may have come while this read was on its way.
      return laterResearch(client.getQueryData<Research>(queryKey), research);
    },
  });

/** A research as now reported, unless the cache holds a newer copy. */
export function putResearch(qc: QueryClient, research: Research): void {
  qc.setQueryData<Research>(researchKeys.one(research.threadId, research.id), (known) => laterResearch(known, research));
}

/** The researches of a thread that this page holds (those its cards read, or its frames told of). */
export function cachedResearches(qc: QueryClient, threadId: string): Research[] {
  return qc
    .getQueriesData<Research>({ queryKey: researchKeys.thread(threadId) })
    .flatMap(([, r]) => (r ? [r] : []))
    .sort((a, b) => a.startedAt - b.startedAt);
}

const NONE: Research[] = [];

/** cachedResearches, kept current: the same array until one of them changes. */
export function useThreadResearches(threadId: string | null): readonly Research[] {
  const qc = useQueryClient();
  const last = useRef<Research[]>(NONE);
  const read = useCallback(() => {
    const now = threadId ? cachedResearches(qc, threadId) : NONE;
    const same = now.length === last.current.length && now.every((r, i) => r === last.current[i]);
    if (!same) last.current = now;
    return last.current;
  }, [qc, threadId]);
  const subscribe = useCallback((changed: () => void) => qc.getQueryCache().subscribe(changed), [qc]);
  return useSyncExternalStore(subscribe, read, read);
}

/** The research a task researches a sub-question of (its number, from 1), if this page holds it. */
export function useResearchOfTask(threadId: string | null, taskId: string | undefined): { research: Research; n: number } | null {
  const researches = useThreadResearches(threadId);
  return useMemo(() => {
    if (!taskId) return null;
    for (const research of researches) {
      const i = research.subquestions.findIndex((s) => s.taskId === taskId);
      if (i >= 0) return { research, n: i + 1 };
    }
    return null;
  }, [researches, taskId]);
}

/** The tasks of the thread's researches (their cards show them). */
export function useResearchTaskIds(threadId: string | null): ReadonlySet<string> {
  const researches = useThreadResearches(threadId);
  return useMemo(() => new Set(researches.flatMap((r) => r.subquestions.flatMap((s) => (s.taskId ? [s.taskId] : [])))), [researches]);
}

/** What a thread's socket events change in the research (queries/threadEvents.ts calls it for each). */
export function cacheResearchEvent(qc: QueryClient, frame: EventFrame): void {
  if (frame.event === "research:updated") putResearch(qc, frame.data.research);
}

/** Starts a research in a thread (`threadFor` gives it: a new conversation's is made first). Answers it. */
export function useStartResearch(threadFor: (question: string) => Promise<string>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: StartResearchBody) => {
      const id = await threadFor(body.question);
      return (await request("POST /api/threads/:id/research", { params: { id }, body })).research;
    },
    onSuccess: (research) => putResearch(qc, research),
  });
}

/** The plan under review, as given or edited: its tasks start. */
export function usePlanResearch(research: Pick<Research, "threadId" | "id">) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (subquestions: string[]) =>
      request("POST /api/threads/:id/research/:researchId/plan", { params: { id: research.threadId, researchId: research.id }, body: { subquestions } }).then(
        (r) => r.research,
      ),
    onSuccess: (r) => putResearch(qc, r),
  });
}

/** Stops the research and all its tasks at once. */
export function useStopResearch(research: Pick<Research, "threadId" | "id">) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () =>
      request("POST /api/threads/:id/research/:researchId/stop", { params: { id: research.threadId, researchId: research.id } }).then((r) => r.research),
    onSuccess: (r) => putResearch(qc, r),
  });
}
