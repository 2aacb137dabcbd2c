// The user's MCP servers (PROTOCOL.md "MCP servers"): the Connections page lists, adds, changes and
// removes them; a thread's settings choose which of them it offers the model.

import type { McpServer, McpServerBody, McpServerPatch } from "@protocol";
import { queryOptions, useMutation, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { request } from "../api";

export const mcpKeys = {
  servers: ["mcp", "servers"] as const,
};

/** In the order the server answers them (oldest first); a new one goes last. */
export const mcpServersQuery = queryOptions({
  queryKey: mcpKeys.servers,
  queryFn: ({ signal }) => request("GET /api/mcp/servers", { signal }).then((r) => r.servers),
});

function putServer(qc: QueryClient, server: McpServer): void {
  qc.setQueryData(mcpKeys.servers, (list: McpServer[] | undefined) =>
    list && (list.some((s) => s.id === server.id) ? list.map((s) => (s.id === server.id ? server : s)) : [...list, server]),
  );
}

/** Answers once the server's tool list is read (201), or when it wants the user to sign in (`authenticating`). */
export function useAddServer() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: McpServerBody) => request("POST /api/mcp/servers", { body }).then((r) => r.server),
    onSuccess: (server) => putServer(qc, server),
  });
}

export function usePatchServer() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...body }: { id: string } & McpServerPatch) =>
      request("PATCH /api/mcp/servers/:serverId", { params: { serverId: id }, body }).then((r) => r.server),
    onSuccess: (server) => putServer(qc, server),
  });
}

export function useRemoveServer() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request("DELETE /api/mcp/servers/:serverId", { params: { serverId: id } }),
    onSuccess: (_, id) => qc.setQueryData(mcpKeys.servers, (list: McpServer[] | undefined) => list?.filter((s) => s.id !== id)),
  });
}
