// The SDK's OAuth client, kept in a server's secrets: the registration it made (dynamic client
// registration), the PKCE verifier of a sign-in under way, the tokens and their refresh. The SDK runs
// the flow (discovery, registration, PKCE, refresh); this only keeps what it hands over.
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { ServerSecrets } from "./servers";
import { newSignInState, SIGN_IN_TTL_MS } from "./sign-in-state";

type OAuthState = NonNullable<ServerSecrets["oauth"]>;

export class StoredAuth implements OAuthClientProvider {
  /** Where the user signs in, once the SDK asked for it. */
  authUrl?: string;

  constructor(
    private readonly oauth: OAuthState,
    /** The user's object's id and the server's, which open the state: the callback finds the sign-in by them. */
    private readonly holder: string,
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
    this.oauth.state = newSignInState(this.holder, this.serverId);
    this.oauth.stateExpiresAt = Date.now() + SIGN_IN_TTL_MS;
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
