import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { request } from "../api";

const contextKeys = {
  list: ["context", "list"] as const,
  file: (path: string) => ["context", "file", path] as const,
};

/** The files, and those the server cut to fit the model's window (`cut`: absent on older servers). */
export const contextFilesQuery = queryOptions({
  queryKey: contextKeys.list,
  queryFn: ({ signal }) => request("GET /api/context", { signal }).then((r) => ({ files: r.files, cut: new Set(r.cut ?? []) })),
});

export const contextFileQuery = (path: string) =>
  queryOptions({
    queryKey: contextKeys.file(path),
    queryFn: ({ signal }) => request("GET /api/context/:path", { params: { path }, signal }).then((r) => r.file),
  });

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
