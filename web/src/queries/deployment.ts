// What the deployment says about itself: GET /api/health (provider, default model, the caller) and
// GET /api/models (the models a thread may use).

import { queryOptions } from "@tanstack/react-query";
import { request } from "../api";

export const healthQuery = queryOptions({
  queryKey: ["health"] as const,
  queryFn: ({ signal }) => request("GET /api/health", { signal }),
  staleTime: 60_000,
});

export const modelsQuery = queryOptions({
  queryKey: ["models"] as const,
  queryFn: ({ signal }) => request("GET /api/models", { signal }),
  staleTime: 60 * 60_000,
});
