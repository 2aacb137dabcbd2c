// The user's API keys (PROTOCOL.md "API keys and compatible endpoints"): listed, made and revoked on
// Settings › API keys. A key's secret never enters the query client (see createApiKey).

import type { ApiKey } from "@protocol";
import { queryOptions, useMutation, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { ApiError, request } from "../api";

const apiKeyKeys = {
  list: ["apiKeys"] as const,
};

/** Newest first, as the server answers them. */
export const apiKeysQuery = queryOptions({
  queryKey: apiKeyKeys.list,
  queryFn: ({ signal }) => request("GET /api/keys", { signal }).then((r) => r.keys),
});

/**
 * Makes a key: it is listed at once, and its secret goes to the caller alone. Not a mutation on
 * purpose: react-query keeps a mutation's answer (here, the secret) in its cache, which outlives the
 * page that showed it.
 */
export async function createApiKey(qc: QueryClient, name: string): Promise<{ key: ApiKey; secret: string }> {
  const { key, secret } = await request("POST /api/keys", { body: { name } });
  qc.setQueryData(apiKeyKeys.list, (keys: ApiKey[] | undefined) => [key, ...(keys ?? []).filter((k) => k.id !== key.id)]);
  void qc.invalidateQueries({ queryKey: apiKeyKeys.list });
  return { key, secret };
}

/** Revoked: the key is refused from then on. One already gone (404, revoked in another tab) is as good. */
export function useRevokeApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (keyId: string) =>
      request("DELETE /api/keys/:keyId", { params: { keyId } }).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }),
    onSuccess: (_, keyId) => qc.setQueryData(apiKeyKeys.list, (keys: ApiKey[] | undefined) => keys?.filter((k) => k.id !== keyId)),
  });
}
