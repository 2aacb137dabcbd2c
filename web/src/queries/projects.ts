// The user's projects, and each one's files, in the query cache. A project's deletion takes its
// threads out of it (the server does; the thread list is read again here). A file's text is
// extracted and indexed after its upload: the list is read again every ~2 s while a file processes.
// Search asks what retrieval gives for a question (PROTOCOL.md, "Knowledge").

import type { BodyOf, Project, ProjectFile } from "@protocol";
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { request } from "../api";
import { uploadProjectFile } from "../fileTransfer";
import { anyProcessing, PROCESSING_POLL_MS } from "../lib/projectKnowledge";
import { mediaTypeOf } from "../lib/uploads";
import { announceThreadsChanged, threadKeys } from "./threads";

export const projectKeys = {
  all: ["projects"] as const,
  list: ["projects", "list"] as const,
  one: (id: string) => ["projects", "one", id] as const,
  files: (id: string) => ["projects", "files", id] as const,
  /** Every search of the project (what its files' changes make stale). */
  searches: (id: string) => ["projects", "search", id] as const,
  search: (id: string, q: string) => ["projects", "search", id, q] as const,
};

/** The user's projects, by name. */
export const projectsQuery = queryOptions({
  queryKey: projectKeys.list,
  queryFn: ({ signal }) =>
    request("GET /api/projects", { signal }).then((r) => [...r.projects].sort((a, b) => a.name.localeCompare(b.name))),
  staleTime: 30_000,
});

export const projectQuery = (id: string) =>
  queryOptions({
    queryKey: projectKeys.one(id),
    queryFn: ({ signal }) => request("GET /api/projects/:projectId", { params: { projectId: id }, signal }).then((r) => r.project),
  });

export const projectFilesQuery = (id: string) =>
  queryOptions({
    queryKey: projectKeys.files(id),
    queryFn: ({ signal }) => request("GET /api/projects/:projectId/files", { params: { projectId: id }, signal }).then((r) => r.files),
    // While a file's text is extracted and indexed, its status is read again until it is ready or failed.
    refetchInterval: (query) => (anyProcessing(query.state.data) ? PROCESSING_POLL_MS : false),
  });

/** What retrieval gives for `q` in the project (the passages a run would be given). */
export const projectSearchQuery = (id: string, q: string) =>
  queryOptions({
    queryKey: projectKeys.search(id, q),
    queryFn: ({ signal }) => request("GET /api/projects/:projectId/search", { params: { projectId: id }, query: { q }, signal }).then((r) => r.results),
    enabled: q.trim().length > 0,
    staleTime: 0,
  });

function usePutProject() {
  const qc = useQueryClient();
  return (project: Project) => {
    qc.setQueryData(projectKeys.one(project.id), project);
    qc.setQueryData(projectKeys.list, (list: Project[] | undefined) =>
      list && [...list.filter((p) => p.id !== project.id), project].sort((a, b) => a.name.localeCompare(b.name)),
    );
    void qc.invalidateQueries({ queryKey: projectKeys.list });
  };
}

export function useCreateProject() {
  const put = usePutProject();
  return useMutation({
    mutationFn: (body: BodyOf<"POST /api/projects">) => request("POST /api/projects", { body }).then((r) => r.project),
    onSuccess: put,
  });
}

export function usePatchProject() {
  const put = usePutProject();
  return useMutation({
    mutationFn: ({ id, ...body }: { id: string } & BodyOf<"PATCH /api/projects/:projectId">) =>
      request("PATCH /api/projects/:projectId", { params: { projectId: id }, body }).then((r) => r.project),
    onSuccess: put,
  });
}

/** Deleting a project keeps its threads, out of it: the threads are read again. */
export function useDeleteProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request("DELETE /api/projects/:projectId", { params: { projectId: id } }),
    onSuccess: (_, id) => {
      qc.removeQueries({ queryKey: projectKeys.one(id) });
      qc.removeQueries({ queryKey: projectKeys.files(id) });
      qc.removeQueries({ queryKey: projectKeys.searches(id) });
      qc.setQueryData(projectKeys.list, (list: Project[] | undefined) => list?.filter((p) => p.id !== id));
      void qc.invalidateQueries({ queryKey: threadKeys.all });
      announceThreadsChanged();
    },
  });
}

export function useUploadProjectFile(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ file, onProgress }: { file: File; onProgress?: (sent: number, total: number) => void }) =>
      uploadProjectFile(projectId, file, mediaTypeOf(file), { onProgress }),
    onSuccess: (file: ProjectFile) => {
      qc.setQueryData(projectKeys.files(projectId), (files: ProjectFile[] | undefined) => putFile(files, file));
      void qc.invalidateQueries({ queryKey: projectKeys.files(projectId) });
      void qc.invalidateQueries({ queryKey: projectKeys.searches(projectId) });
    },
  });
}

/** A file put in the list as the server answered it (its status included). */
function putFile(files: ProjectFile[] | undefined, file: ProjectFile): ProjectFile[] | undefined {
  return files && (files.some((f) => f.id === file.id) ? files.map((f) => (f.id === file.id ? file : f)) : [...files, file]);
}

/** Extract and index a (failed) file again: it is processing, and the list polls until it is done. */
export function useReprocessProjectFile(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (fileId: string) => request("POST /api/projects/:projectId/files/:fileId/reprocess", { params: { projectId, fileId } }).then((r) => r.file),
    onSuccess: (file: ProjectFile) => {
      qc.setQueryData(projectKeys.files(projectId), (files: ProjectFile[] | undefined) => putFile(files, file));
      void qc.invalidateQueries({ queryKey: projectKeys.searches(projectId) });
    },
  });
}

export function useDeleteProjectFile(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (fileId: string) => request("DELETE /api/projects/:projectId/files/:fileId", { params: { projectId, fileId } }),
    onSuccess: (_, fileId) => {
      qc.setQueryData(projectKeys.files(projectId), (files: ProjectFile[] | undefined) => files?.filter((f) => f.id !== fileId));
      void qc.invalidateQueries({ queryKey: projectKeys.searches(projectId) });
    },
  });
}
