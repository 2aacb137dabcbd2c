// The app's own OAuth 2.1 authorization server, for its MCP server at /mcp (PROTOCOL.md, "API keys and
// compatible endpoints"): what the Worker and the web app's consent page share.

/** The one scope a grant carries: what the MCP server's tools do for the user (docs/protocol-notes.md, "OAuth for /mcp"). */
export const MCP_OAUTH_SCOPE = "mcp";

/** The authorization endpoint: the web app's consent page, where a client sends the user's browser. */
export const OAUTH_AUTHORIZE_PATH = "/oauth/authorize";

/** What the consent page shows of an authorization request. */
export interface OAuthConsent {
  /** The name the client registered itself under (unverified), or its client id when it gave none. */
  clientName: string;
  /** Where the code goes: the host of the client's redirect URI. */
  redirectHost: string;
  /** The redirect goes to an app on the user's own computer (localhost), whatever its name says. */
  redirectIsLoopback: boolean;
  /** What the grant will carry. */
  scope: string[];
}

/** Where the browser goes next: the client's redirect URI with a code, or with an OAuth error. */
export interface OAuthRedirect {
  redirectTo: string;
}

/** The consent page's decision on the request it showed (`request`: that request's query string). */
export interface OAuthDecision {
  request: string;
  allow: boolean;
}
