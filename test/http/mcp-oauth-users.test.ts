// Whom /mcp acts for with an OAuth access token: the user who approved the token's grant, and never
// another. Each user's token lists that user's threads only, through the MCP server's own tools.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bearer, connect, initialize, registerClient, type Tokens } from "./oauth-client";
import { callApp, createThreadVia, tokenUsers, type Env } from "./util";

const { users, tokenEnv, as } = tokenUsers("alice", "bob");
const [alice, bob] = [as(users.alice), as(users.bob)];

/** The text of a tools/call answer (JSON, or one SSE event), as the MCP server gives it. */
async function callTool(appEnv: Env, tokens: Tokens, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const res = await callApp(appEnv, "/mcp", {
    body: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: args } },
    headers: { accept: "application/json, text/event-stream", ...bearer(tokens.access_token) },
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(text).not.toContain('"isError":true');
  return text;
}

describe("/mcp acts for the grant's user", () => {
  it("the same client approved by Alice and by Bob: each token reaches the MCP server as its own user, and sees only that user's threads", async () => {
    const [aliceThread, bobThread] = [await createThreadVia(alice, { name: "alice's plans" }), await createThreadVia(bob, { name: "bob's plans" })];
    const client = await registerClient(tokenEnv);
    const aliceTokens = await connect(tokenEnv, alice, client);
    const bobTokens = await connect(tokenEnv, bob, client);
    expect((await initialize(tokenEnv, bearer(aliceTokens.access_token))).status).toBe(200);

    const aliceSees = await callTool(tokenEnv, aliceTokens, "list_threads");
    expect(aliceSees).toContain(aliceThread.id);
    expect(aliceSees).not.toContain(bobThread.id);
    const bobSees = await callTool(tokenEnv, bobTokens, "list_threads");
    expect(bobSees).toContain(bobThread.id);
    expect(bobSees).not.toContain(aliceThread.id);
    // Bob's approval of the same client took nothing of Alice's: her token still reaches her threads.
    expect(await callTool(tokenEnv, aliceTokens, "list_threads")).toContain(aliceThread.id);
    // Nor does her token read his thread by its id.
    const read = await callApp(tokenEnv, "/mcp", {
      body: { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "read_thread", arguments: { threadId: bobThread.id } } },
      headers: { accept: "application/json, text/event-stream", ...bearer(aliceTokens.access_token) },
    });
    const readText = await read.text();
    expect(readText).not.toContain("bob's plans");
    expect(readText).toContain('"isError":true');
  });

  it("approving again for a client replaces the user's earlier grant to it: the earlier token stops working", async () => {
    const client = await registerClient(tokenEnv);
    const first = await connect(tokenEnv, alice, client);
    const second = await connect(tokenEnv, alice, client);
    expect((await initialize(tokenEnv, bearer(first.access_token))).status).toBe(401);
    expect((await initialize(tokenEnv, bearer(second.access_token))).status).toBe(200);
  });

  it("a user id the library's tokens could not hold as it is (an email) is the MCP server's user as it is", async () => {
    const dana = { id: `dana+${crypto.randomUUID().slice(0, 6)}@example.com`, token: `tok-dana-${crypto.randomUUID()}` };
    const danaEnv = { ...tokenEnv, AUTH_TOKENS: `${tokenEnv.AUTH_TOKENS},${dana.token}:${dana.id}` };
    const asDana = (path: string, opts = {}) => callApp(danaEnv, path, { ...opts, token: dana.token });
    const thread = await createThreadVia(asDana, { name: "dana's" });
    const tokens = await connect(danaEnv, asDana, await registerClient(danaEnv));
    expect(tokens.access_token.split(":")).toHaveLength(3);
    expect(await callTool(danaEnv, tokens, "list_threads")).toContain(thread.id);
  });

  it("AUTH_MODE none still takes an OAuth token, as its grant's user (not the local one)", async () => {
    const thread = await createThreadVia(bob, { name: "bob's, again" });
    const tokens = await connect(tokenEnv, bob, await registerClient(tokenEnv));
    expect(await callTool(env, tokens, "list_threads")).toContain(thread.id);
  });
});
