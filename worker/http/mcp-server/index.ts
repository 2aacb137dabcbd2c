// The app as an MCP server (PROTOCOL.md, "/mcp"): Streamable HTTP, for the user a key or an OAuth token
// names. Its tools are tools.ts's.
import type { Env } from "../../env";

/** Answers one MCP request (Streamable HTTP) for `userId`, whom the caller authenticated. */
export async function handleMcp(request: Request, env: Env, ctx: ExecutionContext, userId: string): Promise<Response> {
  void request;
  void env;
  void ctx;
  void userId;
  return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32601, message: "The MCP server's tools are being built" } }, { status: 501 });
}
