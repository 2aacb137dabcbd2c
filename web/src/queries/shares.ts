// Share links: the owner's (made from a thread, listed, revoked), and a shared thread as anyone with
// its link reads it (GET /api/shared/:id, no sign-in).

import type { Share } from "@protocol";
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { ApiError, request, routeUrl } from "../api";

const shareKeys = {
  mine: ["shares", "mine"] as const,
  shared: (id: string) => ["shares", "shared", id] as const,
};

/** The caller's links, newest first. */
export const sharesQuery = queryOptions({
  queryKey: shareKeys.mine,
  queryFn: ({ signal }) => request("GET /api/shares", { signal }).then((r) => r.shares),
});

export function useCreateShare() {
  const qc = useQueryClient();
  return useMutation({
    /** `codeFiles`: the link shares the files the thread's code wrote too. */
    mutationFn: ({ threadId, codeFiles }: { threadId: string; codeFiles?: boolean }) =>
      request("POST /api/threads/:id/shares", { params: { id: threadId }, body: codeFiles ? { codeFiles } : {} }).then((r) => r.share),
    onSuccess: (share) => {
      // Listed at once, even when the list's first read is still on its way (the refetch below follows it).
      qc.setQueryData(shareKeys.mine, (list: Share[] | undefined) => [share, ...(list ?? []).filter((s) => s.id !== share.id)]);
      void qc.invalidateQueries({ queryKey: shareKeys.mine });
    },
  });
}

/** Revoked: the link answers 404 from now on. */
export function useRevokeShare() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (shareId: string) => request("DELETE /api/shares/:shareId", { params: { shareId } }),
    onSuccess: (_, shareId) => qc.setQueryData(shareKeys.mine, (list: Share[] | undefined) => list?.filter((s) => s.id !== shareId)),
  });
}

/** A shared thread, without credentials. A 404 (revoked, unknown) is an answer, not retried. */
export const sharedThreadQuery = (shareId: string) =>
  queryOptions({
    queryKey: shareKeys.shared(shareId),
    queryFn: ({ signal }) => request("GET /api/shared/:shareId", { params: { shareId }, signal }),
    retry: (failures, error) => failures < 2 && (!(error instanceof ApiError) || error.transient),
    staleTime: Infinity,
  });

/** The files a thread's code wrote (GET /api/threads/:id/files), newest first. */
export const threadFilesQuery = (threadId: string) =>
  queryOptions({
    queryKey: ["threads", threadId, "files"] as const,
    queryFn: ({ signal }) => request("GET /api/threads/:id/files", { params: { id: threadId }, signal }).then((r) => r.files),
  });

/** A file sent in a shared thread, served by the share's own route (the route map has no entry: it answers bytes). */
export const sharedFileUrl = (shareId: string, fileId: string) =>
  `${routeUrl("GET /api/shared/:shareId", { params: { shareId } })}/files/${encodeURIComponent(fileId)}`;
