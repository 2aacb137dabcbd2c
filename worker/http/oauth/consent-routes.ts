// The consent page's two calls (the web app's page at the authorization endpoint): what a request
// asks, and the signed-in user's decision. Behind `authenticate`, so the user who grants is the one
// signed in to the web app; a JSON body and the app's Origin check keep another site from deciding.
import { authorizationErrorRedirect, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { MCP_OAUTH_SCOPE } from "../../../protocol";
import type { AppEnv } from "../app-env";
import { ApiError } from "../errors";
import { reply } from "../reply";
import { jsonBody } from "../validate";
import { isRedirect, parseAuthorization } from "./authorization-request";
import { grantSubject, type GrantProps } from "./grant";
import { oauthFor } from "./roles";

/** An authorization request's query: a client id, a redirect URI, a state, a challenge, a resource. */
const MAX_REQUEST_CHARS = 8_192;
const requestQuery = z.string().min(1).max(MAX_REQUEST_CHARS);
const decisionBody = z.strictObject({ request: requestQuery, allow: z.boolean() });

function oauthOf(c: Context<AppEnv>): { oauth: OAuthHelpers; origin: string } {
  const roles = oauthFor(c.req.url);
  if (!roles) throw new ApiError("not_found", "OAuth needs https (or localhost) on this host");
  // The answers name where a code goes, or carry it: no cache keeps them.
  c.header("Cache-Control", "no-store");
  return { oauth: roles.authorization.getOAuthApi(c.env), origin: new URL(c.req.url).origin };
}

export const oauthConsentRoutes = new Hono<AppEnv>()
  .get("/authorize", async (c) => {
    const { oauth, origin } = oauthOf(c);
    const parsed = await parseAuthorization(oauth, origin, requestQuery.parse(c.req.query("request") ?? ""));
    if (isRedirect(parsed)) return reply(c, "GET /api/oauth/authorize", parsed);
    const { clientName, redirectHost, redirectIsLoopback } = await oauth.describeConsent(parsed);
    return reply(c, "GET /api/oauth/authorize", { consent: { clientName, redirectHost, redirectIsLoopback, scope: [MCP_OAUTH_SCOPE] } });
  })
  .post("/authorize", jsonBody("POST /api/oauth/authorize", decisionBody), async (c) => {
    const { oauth, origin } = oauthOf(c);
    const { request, allow } = c.req.valid("json");
    const parsed = await parseAuthorization(oauth, origin, request);
    if (isRedirect(parsed)) return reply(c, "POST /api/oauth/authorize", parsed);
    if (!allow) return reply(c, "POST /api/oauth/authorize", { redirectTo: authorizationErrorRedirect(parsed, "access_denied", "The user declined") });
    const props: GrantProps = { userId: c.var.userId };
    // The scope is the app's to give, whatever the client asked: the one that reaches /mcp.
    const { redirectTo } = await oauth.completeAuthorization({ request: parsed, userId: grantSubject(c.var.userId), metadata: {}, scope: [MCP_OAUTH_SCOPE], props });
    return reply(c, "POST /api/oauth/authorize", { redirectTo });
  });
