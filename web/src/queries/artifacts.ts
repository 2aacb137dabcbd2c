// A thread's artifacts in the query cache: the current branch's list (for the cards) and the
// versions the panel shows. artifact:updated on the open thread's socket puts the new version in the
// list and reloads what the panel shows of that artifact; a change of branch reloads them all (the
// branch decides which versions exist).

import type { Artifact, ArtifactInfo, EventFrame } from "@protocol";
import { queryOptions, useQuery, type QueryClient } from "@tanstack/react-query";
import mermaidUrl from "mermaid/dist/mermaid.min.js?url";
import { request } from "../api";
import { withArtifact } from "../lib/artifacts";

const artifactKeys = {
  thread: (threadId: string) => ["artifacts", threadId] as const,
  list: (threadId: string) => ["artifacts", threadId, "list"] as const,
  one: (threadId: string, id: string) => ["artifacts", threadId, "one", id] as const,
  version: (threadId: string, id: string, version: number | null) => ["artifacts", threadId, "one", id, version ?? "latest"] as const,
};

const NONE: ArtifactInfo[] = [];

export const artifactsQuery = (threadId: string) =>
  queryOptions({
    queryKey: artifactKeys.list(threadId),
    queryFn: ({ signal }) => request("GET /api/threads/:id/artifacts", { params: { id: threadId }, signal }).then((r) => r.artifacts),
  });

/** One artifact: a version of it (`null`: its latest, which artifact:updated reloads), with the branch's versions. */
export const artifactQuery = (threadId: string, id: string, version: number | null) =>
  queryOptions({
    queryKey: artifactKeys.version(threadId, id, version),
    queryFn: ({ signal }): Promise<Artifact> =>
      request("GET /api/threads/:id/artifacts/:artifactId", {
        params: { id: threadId, artifactId: id },
        query: version === null ? {} : { version },
        signal,
      }).then((r) => r.artifact),
  });

/** The current branch's artifacts (none before a thread exists). */
export function useThreadArtifacts(threadId: string | null): ArtifactInfo[] {
  const query = useQuery({ ...artifactsQuery(threadId ?? ""), enabled: threadId !== null });
  return query.data ?? NONE;
}

/** What a thread's socket events change in the artifacts (queries/threadEvents.ts calls it for each). */
export function cacheArtifactEvent(qc: QueryClient, frame: EventFrame): void {
  if (frame.event === "artifact:updated") {
    const { threadId, artifact } = frame.data;
    const list = qc.getQueryData<ArtifactInfo[]>(artifactKeys.list(threadId));
    if (list) qc.setQueryData(artifactKeys.list(threadId), withArtifact(list, artifact));
    else void qc.invalidateQueries({ queryKey: artifactKeys.list(threadId) });
    void qc.invalidateQueries({ queryKey: artifactKeys.one(threadId, artifact.id) });
  } else if (frame.event === "thread:updated" && frame.data.messages) {
    // Another branch is shown: its artifacts are others, or other versions.
    void qc.invalidateQueries({ queryKey: artifactKeys.thread(frame.data.threadId) });
  }
}

/**
 * Mermaid's standalone build, as text, fetched the first time a diagram is shown: it runs inside the
 * diagram's sandboxed frame, not in the app (it writes inline styles, which the app's policy refuses,
 * and a diagram's source is the model's).
 */
export const mermaidLibraryQuery = queryOptions({
  queryKey: ["mermaid-library"],
  queryFn: async ({ signal }) => {
    const res = await fetch(mermaidUrl, { signal });
    if (!res.ok) throw new Error(`Could not load the diagram library (${res.status})`);
    return res.text();
  },
  staleTime: Infinity,
  gcTime: Infinity,
});
