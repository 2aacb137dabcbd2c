import { queryOptions } from "@tanstack/react-query";
import { request } from "../api";

const LIMIT = 20;

/** Messages of the user's threads that hold the words of `q`, best match first. */
export const searchQuery = (q: string) =>
  queryOptions({
    queryKey: ["search", q] as const,
    queryFn: ({ signal }) => request("GET /api/search", { query: { q, limit: LIMIT }, signal }).then((r) => r.results),
    staleTime: 30_000,
  });
