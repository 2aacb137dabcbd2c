// The owner's context files in the query cache. The model's memory tool writes them too, during a
// run in any thread or tab: a context:changed on an open thread's socket reloads them here and in
// this app's other tabs (a BroadcastChannel), and the Context page polls while it is visible.

import type { ContextFile, ContextFileInfo } from "@protocol";
import { queryOptions, useMutation, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { request } from "../api";

const contextKeys = {
  all: ["context"] as const,
  list: ["context", "list"] as const,
  file: (path: string) => ["context", "file", path] as const,
};

/** How often the Context page asks again while visible (react-query pauses it in a hidden tab). */
const POLL_MS = 5_000;


/** The files, and those the server cut to fit the model's window (`cut`: absent on older servers). */
export const contextFilesQuery = queryOptions({
  queryKey: contextKeys.list,
  queryFn: ({ signal }) => request("GET /api/context", { signal }).then((r) => ({ files: r.files, cut: new Set(r.cut ?? []) })),
  refetchInterval: POLL_MS,
  refetchOnWindowFocus: "always",
});

export const contextFileQuery = (path: string) =>
  queryOptions({
    queryKey: contextKeys.file(path),
    queryFn: ({ signal }) => request("GET /api/context/:path", { params: { path }, signal }).then((r) => r.file),
  });

// ---------- Changes made elsewhere ----------

const channel = typeof BroadcastChannel !== "undefined" ? new BroadcastChannel("orchestrator.context") : null;

/** A run changed the context files (context:changed): reload them, here and in the other tabs. */
export function contextChanged(qc: QueryClient): void {
  void qc.invalidateQueries({ queryKey: contextKeys.all });
  channel?.postMessage({ type: "changed" });
}

/**
 * Keeps the Context page current: reloads when another tab hears of a change, and reloads a file
 * whose listed version is newer than the one shown.
 */
export function useContextFilesLive(files: readonly ContextFileInfo[] | undefined): void {
  const qc = useQueryClient();
  useEffect(() => {
    const onMessage = () => void qc.invalidateQueries({ queryKey: contextKeys.all });
    channel?.addEventListener("message", onMessage);
    return () => channel?.removeEventListener("message", onMessage);
  }, [qc]);
  useEffect(() => {
    for (const f of files ?? []) {
      const shown = qc.getQueryData<ContextFile>(contextKeys.file(f.path));
      if (shown && shown.updatedAt < f.updatedAt) void qc.invalidateQueries({ queryKey: contextKeys.file(f.path) });
    }
  }, [qc, files]);
}

// ---------- Edits ----------

export function useSaveContextFile() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ path, content }: { path: string; content: string }) =>
      request("PUT /api/context/:path", { params: { path }, body: { content } }).then((r) => r.file),
    onSuccess: (file) => {
      qc.setQueryData(contextKeys.file(file.path), file);
      void qc.invalidateQueries({ queryKey: contextKeys.list });
    },
  });
}

export function useDeleteContextFile() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (path: string) => request("DELETE /api/context/:path", { params: { path } }),
    onSuccess: (_, path) => {
      qc.removeQueries({ queryKey: contextKeys.file(path) });
      void qc.invalidateQueries({ queryKey: contextKeys.list });
    },
  });
}
