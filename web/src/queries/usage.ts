import { queryOptions } from "@tanstack/react-query";
import { request } from "../api";

const POLL_MS = 30_000;

/** Runs and totals of the last `periodMs` (0: all time), measured back from each fetch. */
export const usageQuery = (periodMs: number) =>
  queryOptions({
    queryKey: ["metrics", periodMs] as const,
    queryFn: async ({ signal }) => {
      const since = periodMs ? Date.now() - periodMs : undefined;
      const metrics = await request("GET /api/metrics", { query: { since }, signal });
      return { ...metrics, since };
    },
    refetchInterval: POLL_MS,
  });
