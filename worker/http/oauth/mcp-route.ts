// /mcp, every method: a program's API key (or, in AUTH_MODE none, no credential: the local user), as
// /v1 takes it (key-auth.ts); any other bearer token is an OAuth access token, which the MCP server's
// resource host validates. Without a credential it answers 401 with the Bearer challenge naming the
// resource's metadata, which is how a connector (Claude.ai, ChatGPT) discovers the OAuth server.
import type { Context } from "hono";
import { API_KEY_SECRET_START } from "../../../protocol";
import { configOf } from "../../env";
import type { AppEnv } from "../app-env";
import { apiSession, secretOf } from "../key-auth";
import { handleMcp } from "../mcp-server";
import { executionOf, oauthFor } from "./roles";

/** An API key's request: its key (never an OAuth token, whose parts are joined by ":"), or none at all in AUTH_MODE none. */
function byApiKey(c: Context<AppEnv>): boolean {
  const secret = secretOf(c.req.raw);
  if (secret?.startsWith(API_KEY_SECRET_START) && !secret.includes(":")) return true;
  if (c.req.header("authorization") !== undefined) return false;
  return c.req.header("x-api-key") !== undefined || configOf(c.env).authMode === "none";
}

export async function mcpRoute(c: Context<AppEnv>): Promise<Response> {
  const roles = oauthFor(c.req.url);
  // A browser client's preflight carries no credential: the resource host answers it for both.
  const res =
    roles && (c.req.method === "OPTIONS" || !byApiKey(c))
      ? await roles.mcp.fetch(c.req.raw, c.env, executionOf(c))
      : await handleMcp(c.req.raw, c.env, executionOf(c), (await apiSession(c)).userId);
  // Its headers become ours to add to (the app's security headers), as the web app's files' do.
  return res.status === 101 ? res : new Response(res.body, res);
}
