// The MCP SDK's own client connecting by URL alone, as a connector does: /mcp's 401, the discovery it
// reads from there, dynamic registration, the consent page (the signed-in user's Allow), the code for
// tokens with PKCE; then the tools, as the user who allowed.
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MCP_SERVER_TOOLS } from "../../protocol";
import { app } from "../../worker/http/app";
import { decide } from "./oauth-client";
import { createThreadVia, tokenUsers } from "./util";

const { users, tokenEnv, as } = tokenUsers("alice");
const alice = as(users.alice);

/** The deployment in token mode, as the SDK's fetch reaches it. */
async function deployed(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(input, init), tokenEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** A connector's OAuth state, kept in memory; the browser it would open is Alice's web app here. */
class Connector implements OAuthClientProvider {
  client?: Awaited<ReturnType<OAuthClientProvider["clientInformation"]>>;
  saved?: Awaited<ReturnType<OAuthClientProvider["tokens"]>>;
  verifier = "";
  opened?: URL;
  get redirectUrl() {
    return "https://connector.example/api/mcp/auth_callback";
  }
  get clientMetadata() {
    return { client_name: "SDK connector", redirect_uris: [this.redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: NonNullable<Connector["client"]>) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: NonNullable<Connector["saved"]>) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.opened = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const transportOf = (connector: Connector) => new StreamableHTTPClientTransport(new URL("https://app.test/mcp"), { authProvider: connector, fetch: deployed });

describe("the MCP SDK's client, with OAuth", () => {
  it("discovers, registers, is sent to the consent page, and once Alice allows, lists the tools and her threads", async () => {
    const thread = await createThreadVia(alice, { name: "found over OAuth" });
    const connector = new Connector();
    const first = new Client({ name: "sdk-connector", version: "1.0.0" });
    await expect(first.connect(transportOf(connector))).rejects.toBeInstanceOf(UnauthorizedError);
    expect(connector.client?.client_id).toBeTruthy();
    const opened = connector.opened!;
    expect(`${opened.origin}${opened.pathname}`).toBe("https://app.test/oauth/authorize");
    expect(opened.searchParams.get("code_challenge_method")).toBe("S256");
    expect(opened.searchParams.get("resource")).toBe("https://app.test/mcp");

    const back = await decide(alice, opened.search, true);
    const transport = transportOf(connector);
    await transport.finishAuth(back.searchParams.get("code")!);
    expect(connector.saved?.access_token).toBeTruthy();

    const mcp = new Client({ name: "sdk-connector", version: "1.0.0" });
    await mcp.connect(transportOf(connector));
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_SERVER_TOOLS].sort());
    const listed = await mcp.callTool({ name: "list_threads", arguments: {} });
    expect(JSON.stringify(listed.content)).toContain(thread.id);
    await mcp.close();
  });
});
