// The authorization server's public endpoints, which the library answers: its metadata (RFC 8414), the
// MCP server's (RFC 9728), dynamic client registration (RFC 7591) and the token endpoint (codes with
// PKCE, refresh, revocation). No sign-in: a client's credentials are its own. The authorization
// endpoint is the web app's consent page (the SPA serves it).
import type { Context } from "hono";
import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { ApiError } from "../errors";
import { executionOf, MCP_PATH, oauthFor, REGISTER_PATH, TOKEN_PATH, type OAuthRoles } from "./roles";

const WELL_KNOWN_AS = "/.well-known/oauth-authorization-server";
const WELL_KNOWN_RESOURCE = `/.well-known/oauth-protected-resource${MCP_PATH}`;

function served(c: Context<AppEnv>, by: (roles: OAuthRoles) => OAuthRoles[keyof OAuthRoles]): Promise<Response> {
  const roles = oauthFor(c.req.url);
  if (!roles) throw new ApiError("not_found", "OAuth needs https (or localhost) on this host");
  return by(roles).fetch(c.req.raw, c.env, executionOf(c));
}

export const oauthEndpoints = new Hono<AppEnv>()
  .all(WELL_KNOWN_AS, (c) => served(c, (r) => r.authorization))
  .all(TOKEN_PATH, (c) => served(c, (r) => r.authorization))
  .all(REGISTER_PATH, (c) => served(c, (r) => r.authorization))
  .all(WELL_KNOWN_RESOURCE, (c) => served(c, (r) => r.mcp))
  // Any other discovery document (OpenID's, say) is not here: a 404, not the web app's page.
  .all("/.well-known/*", () => {
    throw new ApiError("not_found", "Not found");
  });
