// The MCP server as the authorization server's one protected resource: a request whose access token
// the library validated (audience `<origin>/mcp`, expiry, revocation) reaches it as the grant's user.
import { insufficientScope, type OAuthResourceContext } from "@cloudflare/workers-oauth-provider";
import { MCP_OAUTH_SCOPE } from "../../../protocol";
import type { Env } from "../../env";
import { handleMcp } from "../mcp-server";
import type { GrantProps } from "./grant";

export const mcpResourceHandler = {
  fetch(request: Request, env: Env, ctx: OAuthResourceContext<GrantProps>): Promise<Response> | Response {
    // Every grant carries the scope today; a token without it (a future narrower scope) must not pass.
    if (!ctx.auth.scope.includes(MCP_OAUTH_SCOPE)) return insufficientScope(ctx.auth, [MCP_OAUTH_SCOPE]);
    return handleMcp(request, env, ctx, ctx.props.userId);
  },
};
