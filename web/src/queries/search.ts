import { queryOptions } from "@tanstack/react-query";
import { request } from "../api";

const LIMIT = 20;

/** Messages of the user's threads (of one project, when given) that hold the words of `q`, best match first. */
export const searchQuery = (q: string, projectId: string | null = null) =>
  queryOptions({
    queryKey: ["search", q, projectId] as const,
    queryFn: ({ signal }) =>
      request("GET /api/search", { query: { q, limit: LIMIT, ...(projectId ? { projectId } : {}) }, signal }).then((r) => r.results),
    staleTime: 30_000,
  });
