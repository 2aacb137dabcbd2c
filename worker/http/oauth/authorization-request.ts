// An authorization request as the consent page sends it back: its query string, validated again by
// the library at the authorization endpoint's URL on every call (the client, its exact redirect URI,
// the resource, PKCE), so nothing but that query and the user's decision comes from the page.
import { AuthorizationError, authorizationErrorRedirect, type AuthRequest, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { OAUTH_AUTHORIZE_PATH, type OAuthRedirect } from "../../../protocol";
import { ApiError } from "../errors";

/**
 * The request, or where its client must hear it was refused. One whose client or redirect URI is not
 * known is no one's to hear of it: 400 on the page, never a redirect.
 */
export async function parseAuthorization(oauth: OAuthHelpers, origin: string, query: string): Promise<AuthRequest | OAuthRedirect> {
  try {
    const request = await oauth.parseAuthRequest(new Request(`${origin}${OAUTH_AUTHORIZE_PATH}?${query.replace(/^\?/, "")}`));
    // OAuth 2.1 and MCP: PKCE for every client; the library asks it of public clients only.
    if (request.codeChallengeMethod !== "S256") {
      return { redirectTo: authorizationErrorRedirect(request, "invalid_request", "PKCE with code_challenge_method=S256 is required") };
    }
    return request;
  } catch (err) {
    if (!(err instanceof AuthorizationError)) throw err;
    if (err.redirectTo) return { redirectTo: err.redirectTo };
    throw new ApiError("invalid_request", `This authorization request cannot be answered: ${err.description}`);
  }
}

export const isRedirect = (value: AuthRequest | OAuthRedirect): value is OAuthRedirect => "redirectTo" in value;
