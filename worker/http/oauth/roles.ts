// The app's own OAuth 2.1 authorization server, and the MCP server (/mcp) as its one protected
// resource, by @cloudflare/workers-oauth-provider (docs/architecture.md, "OAuth for /mcp"). The library
// fixes the issuer and the resource when it is built, and the app knows no public URL of its own: each
// origin it answers on is an issuer of its own, `<origin>/mcp` its resource, built on the origin's
// first request and kept. A token is bound to its origin's resource, so it is refused on another.
import { OAuthAuthorizationServer, OAuthResourceServer } from "@cloudflare/workers-oauth-provider";
import type { Context } from "hono";
import { MCP_OAUTH_SCOPE, OAUTH_AUTHORIZE_PATH } from "../../../protocol";
import type { Env } from "../../env";
import { consoleLogger } from "../../lib/logger";
import type { GrantProps } from "./grant";
import { mcpResourceHandler } from "./mcp-resource";

export const TOKEN_PATH = "/oauth/token";
export const REGISTER_PATH = "/oauth/register";
export const MCP_PATH = "/mcp";

/** An hour: a stolen access token is short-lived, and the client refreshes without the user. */
const ACCESS_TOKEN_TTL_S = 60 * 60;
/** 30 days from the approval, however often it is refreshed: then the user approves again. */
const REFRESH_TOKEN_TTL_S = 30 * 24 * 60 * 60;
/** A registered client nobody uses for 90 days is forgotten (one in use is renewed by the library). */
const CLIENT_REGISTRATION_TTL_S = 90 * 24 * 60 * 60;

/** Hosts seen at once: the deployment's names (workers.dev, custom domains), and in `wrangler dev` a few. */
const MAX_ORIGINS = 8;

export interface OAuthRoles {
  authorization: OAuthAuthorizationServer<Env>;
  mcp: OAuthResourceServer<Env, GrantProps>;
}

const logger = consoleLogger("oauth");

/** The request's execution context, which Hono types narrower than the runtime's (what the library's roles take). */
export const executionOf = (c: Context): ExecutionContext => c.executionCtx as ExecutionContext;

const built = new Map<string, OAuthRoles | null>();

/** The authorization server and resource of the request's origin; null where OAuth cannot be (plain http on a host other than loopback). */
export function oauthFor(url: string): OAuthRoles | null {
  const { origin } = new URL(url);
  if (!built.has(origin)) {
    if (built.size >= MAX_ORIGINS) built.delete(built.keys().next().value!);
    built.set(origin, build(origin));
  }
  return built.get(origin)!;
}

function build(issuer: string): OAuthRoles | null {
  const resource = `${issuer}${MCP_PATH}`;
  try {
    const authorization = new OAuthAuthorizationServer<Env>({
      issuer,
      resources: [resource],
      authorizeEndpoint: OAUTH_AUTHORIZE_PATH,
      tokenEndpoint: TOKEN_PATH,
      clientRegistrationEndpoint: REGISTER_PATH,
      scopesSupported: [MCP_OAUTH_SCOPE],
      accessTokenTTL: ACCESS_TOKEN_TTL_S,
      refreshTokenTTL: REFRESH_TOKEN_TTL_S,
      clientRegistrationTTL: CLIENT_REGISTRATION_TTL_S,
      // The library's own line holds its description; ours keeps to the code and the failed check.
      onError: ({ code, status, internal }) => {
        logger.warn("oauth error response", { status, code, category: internal.category, reason: internal.reason });
      },
    });
    const mcp = new OAuthResourceServer<Env, GrantProps>({
      resourceMetadata: { resource, authorization_servers: [issuer], resource_name: "Edge orchestrator MCP server" },
      requiredScopes: [MCP_OAUTH_SCOPE],
      validateToken: (env) => (res, token) => authorization.validateToken<GrantProps>(res, token, env),
      handler: mcpResourceHandler,
    });
    return { authorization, mcp };
  } catch {
    // OAuth 2.1 needs https; the library refuses an http issuer unless it is a loopback one.
    return null;
  }
}
