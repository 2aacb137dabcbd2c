// An OAuth client of the app's own authorization server, as a connector (Claude.ai, ChatGPT) is one:
// it registers itself, sends its user to the consent page with a PKCE challenge, and exchanges the
// code. `call` is the signed-in user's web app (tokenUsers' `as(user)`); `appEnv` the deployment's.
import { expect } from "vitest";
import type { ApiOptions } from "../helpers";
import { callApp, type Env } from "./util";

export const ORIGIN = "https://app.test";
export const RESOURCE = `${ORIGIN}/mcp`;
export const RESOURCE_METADATA = `${ORIGIN}/.well-known/oauth-protected-resource/mcp`;

export type Call = (path: string, opts?: Omit<ApiOptions, "token">) => Promise<Response>;

export interface Client {
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

const base64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** A PKCE pair (RFC 7636, S256). */
export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

/** A form body, as the token endpoint takes it. */
export const form = (fields: Record<string, string>): Omit<ApiOptions, "token"> => ({
  method: "POST",
  body: new URLSearchParams(fields).toString(),
  headers: { "content-type": "application/x-www-form-urlencoded" },
});

/** Dynamic client registration (RFC 7591): a public client unless `confidential`. */
export async function registerClient(appEnv: Env, opts: { name?: string; redirectUri?: string; confidential?: boolean } = {}): Promise<Client> {
  const redirectUri = opts.redirectUri ?? "https://connector.example/oauth/callback";
  const res = await callApp(appEnv, "/oauth/register", {
    body: {
      client_name: opts.name ?? "Test connector",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: opts.confidential ? "client_secret_post" : "none",
    },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const body = await res.json<{ client_id: string; client_secret?: string }>();
  return { clientId: body.client_id, clientSecret: body.client_secret, redirectUri };
}

/** The authorization request's query, as the client puts it on the authorization endpoint's URL. */
export function authorizeQuery(client: Client, challenge: string, extra: Record<string, string> = {}): string {
  return new URLSearchParams({
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: `state-${crypto.randomUUID()}`,
    scope: "mcp",
    resource: RESOURCE,
    ...extra,
  }).toString();
}

/** The consent page's decision, as the signed-in user's web app posts it: where the browser goes next. */
export async function decide(call: Call, query: string, allow: boolean): Promise<URL> {
  const res = await call("/api/oauth/authorize", { body: { request: query, allow } });
  expect(res.status, await res.clone().text()).toBe(200);
  return new URL((await res.json<{ redirectTo: string }>()).redirectTo);
}

export function exchangeCode(appEnv: Env, client: Client, code: string, verifier: string): Promise<Response> {
  const secret: Record<string, string> = client.clientSecret ? { client_secret: client.clientSecret } : {};
  return callApp(appEnv, "/oauth/token", form({ grant_type: "authorization_code", code, redirect_uri: client.redirectUri, client_id: client.clientId, code_verifier: verifier, resource: RESOURCE, ...secret }));
}

/** The whole flow for `call`'s user: approve, exchange, and the tokens. */
export async function connect(appEnv: Env, call: Call, client: Client): Promise<Tokens> {
  const { verifier, challenge } = await pkce();
  const back = await decide(call, authorizeQuery(client, challenge), true);
  const res = await exchangeCode(appEnv, client, back.searchParams.get("code")!, verifier);
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json<Tokens>();
}

/** An MCP `initialize` request (Streamable HTTP) with `authorization`. */
export function initialize(appEnv: Env, headers: Record<string, string> = {}): Promise<Response> {
  return callApp(appEnv, "/mcp", {
    body: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "oauth-test", version: "1.0.0" } } },
    headers: { accept: "application/json, text/event-stream", ...headers },
  });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
