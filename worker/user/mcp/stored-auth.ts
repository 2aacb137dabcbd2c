// The SDK's OAuth client, kept in a server's secrets: the registration it made (dynamic client
// registration), the PKCE verifier of a sign-in under way, the tokens and their refresh. The SDK runs
// the flow (discovery, registration, PKCE, refresh); this only keeps what it hands over.
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { ServerSecrets } from "./servers";

type OAuthState = NonNullable<ServerSecrets["oauth"]>;

export class StoredAuth implements OAuthClientProvider {
  /** Where the user signs in, once the SDK asked for it. */
  authUrl?: string;

  constructor(
    private readonly oauth: OAuthState,
    /** The server's id, which opens the state parameter: the callback finds the server by it. */
    private readonly serverId: string,
    /** Persists `oauth` (the caller's row) after the SDK changed it. */
    private readonly save: () => void,
  ) {}

  get redirectUrl(): string {
    return this.oauth.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Edge Orchestrator",
      redirect_uris: [this.oauth.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    this.oauth.state = `${this.serverId}.${crypto.randomUUID()}`;
    this.save();
    return this.oauth.state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.oauth.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.oauth.client = info;
    this.save();
  }

  tokens(): OAuthTokens | undefined {
    return this.oauth.tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.oauth.tokens = tokens;
    this.save();
  }

  redirectToAuthorization(url: URL): void {
    this.authUrl = url.toString();
  }

  saveCodeVerifier(verifier: string): void {
    this.oauth.codeVerifier = verifier;
    this.save();
  }

  codeVerifier(): string {
    if (!this.oauth.codeVerifier) throw new Error("No sign-in is under way for this server");
    return this.oauth.codeVerifier;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "client") delete this.oauth.client;
    if (scope === "all" || scope === "tokens") delete this.oauth.tokens;
    if (scope === "all" || scope === "verifier") delete this.oauth.codeVerifier;
    this.save();
  }
}
