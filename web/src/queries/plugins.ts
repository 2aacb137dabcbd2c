import type { BodyOf } from "@protocol";
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { request } from "../api";

export const pluginsQuery = queryOptions({
  queryKey: ["plugins"] as const,
  queryFn: ({ signal }) => request("GET /api/plugins", { signal }).then((r) => r.plugins),
});

export function usePatchPlugin() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, ...body }: { name: string } & BodyOf<"PATCH /api/plugins/:name">) =>
      request("PATCH /api/plugins/:name", { params: { name }, body }).then((r) => r.plugin),
    onSuccess: (plugin) =>
      qc.setQueryData(pluginsQuery.queryKey, (plugins) => plugins?.map((p) => (p.name === plugin.name ? plugin : p))),
  });
}
