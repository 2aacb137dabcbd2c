// The app as an MCP server (PROTOCOL.md, "/mcp"): Streamable HTTP, stateless (a server and its transport
// per request, so any instance answers any request), with JSON answers. The caller is authenticated
// before (an API key, or an OAuth access token); its tools are tools.ts's.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Env } from "../../env";
import { mcpTools } from "./tools";

/** Answers one MCP request for `userId`, whom the caller authenticated. */
export async function handleMcp(request: Request, env: Env, ctx: { waitUntil(p: Promise<unknown>): void }, userId: string): Promise<Response> {
  const requestId = request.headers.get("x-request-id") ?? crypto.randomUUID();
  const server = mcpTools(env, { env, requestId, request }, userId);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  const response = await transport.handleRequest(request);
  ctx.waitUntil(server.close());
  return response;
}
