// MCP servers against real ones (the SDK's own server over Streamable HTTP and SSE, with an OAuth
// authorization server, test/mcp/server.mjs): add, list, offer to the model, call, results, errors,
// timeouts, a server that goes away, sign-in with refresh, two users apart, and no secret anywhere.
import { abortAllDurableObjects } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PART_UNITS } from "../../worker/thread/store/long-text";
import { longestStored, script, upstreamRequests, until } from "../helpers";
import { callApp, createThreadVia, env, expectError, openSocketVia, tokenUsers } from "../http/util";

const { users, as, tokenEnv } = tokenUsers("alice", "bob");
const [alice, bob] = [as(users.alice), as(users.bob)];
const SECRET = `sekrit-${crypto.randomUUID()}`;
const control = async (path: string) => (await fetch(`${env.MCP_CONTROL_URL}${path}`)).json<any>();

let n = 0;
/** A server of Alice's at `path` of the test servers, with a name of its own. */
async function addServer(path: string, extra: Record<string, unknown> = {}, base = env.MCP_TEST_URL) {
  const name = `srv${++n}`;
  const res = await alice("/api/mcp/servers", { body: { name, url: `${base}${path}`, ...extra } });
  return { res, name, body: await res.clone().json<any>() };
}

/** Calls of these tools of server `id` run without asking (their hints say they may change something). */
async function neverAsk(id: string, tools: string[]) {
  const res = await alice(`/api/mcp/servers/${id}`, { method: "PATCH", body: { approval: Object.fromEntries(tools.map((t) => [t, "never"])) } });
  expect(res.status).toBe(200);
}

/** One message in a new thread of Alice's whose answer calls `tool` with `input`; the run's frames and the upstream's requests. */
async function runWithTool(tool: string, input: Record<string, unknown>, threadBody: Record<string, unknown> = {}) {
  const thread = await createThreadVia(alice, threadBody);
  const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.alice.token}` });
  const m = `[[mcp-${crypto.randomUUID()}]]`;
  await script(m, [{ kind: "tool_use", tools: [{ name: tool, input, id: `toolu_${crypto.randomUUID().slice(0, 8)}` }] }, { kind: "text", text: "Done." }]);
  expect((await alice(`/api/threads/${thread.id}/messages`, { body: { content: `go ${m}` } })).status).toBe(202);
  const frames = await ws.waitForRunEnd(1, 15_000);
  ws.close();
  return { thread, frames, requests: (await upstreamRequests(m)).map((r) => r.body) };
}

const resultOf = (requests: any[]) => requests[1].messages.at(-1).content.find((b: any) => b.type === "tool_result");

beforeEach(() => control("/reset"));
afterEach(() => control("/proxy/up"));

describe("adding a server", () => {
  it("lists its tools before answering 201, with their approval and hints, and never its headers' values", async () => {
    const { res, name, body } = await addServer("/tools/mcp", { headers: { "x-api-key": SECRET } });
    expect(res.status, JSON.stringify(body)).toBe(201);
    const { server } = body;
    expect(server).toMatchObject({ name, status: "connected", enabled: true, headerNames: ["x-api-key"] });
    const byName = Object.fromEntries(server.tools.map((t: any) => [t.name, t]));
    expect(Object.keys(byName)).toEqual(expect.arrayContaining(["echo", "add", "delete_item", "fail", "slow", "image", "changes"]));
    expect(byName.echo).toMatchObject({ approval: "auto", asks: false });
    expect(byName.delete_item).toMatchObject({ approval: "auto", asks: true });
    expect(byName.echo.inputSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } } });
    // A name the API would refuse is sanitized; the server's own is kept.
    const weird = server.tools.find((t: any) => t.originalName === "weird.name/with spaces");
    expect(weird.name).toMatch(/^[a-zA-Z0-9_-]+$/);
    // The header reached the server; its value is in no answer.
    expect((await control("/calls")).length).toBe(0);
    const listed = await alice("/api/mcp/servers");
    const text = await listed.text();
    expect(text).toContain(name);
    expect(text).not.toContain(SECRET);
    expect(JSON.stringify(body)).not.toContain(SECRET);
  });

  it("refuses a bad body, a taken name, a plugin's name and an address it may not reach, storing nothing", async () => {
    await expectError(await alice("/api/mcp/servers", { body: { name: "Bad Name", url: `${env.MCP_TEST_URL}/tools/mcp` } }), 400, "invalid_request");
    await expectError(await alice("/api/mcp/servers", { body: { name: "a__b", url: `${env.MCP_TEST_URL}/tools/mcp` } }), 400, "invalid_request");
    await expectError(await alice("/api/mcp/servers", { body: { name: "artifacts", url: `${env.MCP_TEST_URL}/tools/mcp` } }), 400, "invalid_request");
    await expectError(await alice("/api/mcp/servers", { body: { name: "ok", url: "http://mcp.example.com/mcp" } }), 400, "invalid_request");
    await expectError(await alice("/api/mcp/servers", { body: { name: "ok", url: "https://169.254.169.254/mcp" } }), 400, "invalid_request");
    await expectError(await alice("/api/mcp/servers", { body: { name: "ok", url: `${env.MCP_TEST_URL}/tools/mcp`, headers: { "bad header": "x" } } }), 400, "invalid_request");
    const { name } = await addServer("/tools/mcp");
    await expectError(await alice("/api/mcp/servers", { body: { name, url: `${env.MCP_TEST_URL}/tools/mcp` } }), 409, "conflict");
    const { servers } = await (await alice("/api/mcp/servers")).json<any>();
    expect(servers.filter((s: any) => s.name === name)).toHaveLength(1);
  });

  it("answers 502 for a server that does not speak MCP or cannot be reached, and keeps nothing", async () => {
    const before = (await (await alice("/api/mcp/servers")).json<any>()).servers.length;
    const garbage = await addServer("/garbage/mcp");
    expect((await expectError(garbage.res, 502, "upstream_error")).message).toMatch(/could not be used/);
    const down = await addServer("/down/mcp");
    await expectError(down.res, 502, "upstream_error");
    expect((await (await alice("/api/mcp/servers")).json<any>()).servers.length).toBe(before);
  });

  it("cuts a long tool list at 100, and speaks SSE to a server that speaks nothing else", async () => {
    const many = await addServer("/many/mcp");
    expect(many.res.status).toBe(201);
    expect(many.body.server.tools).toHaveLength(100);
    const sse = await addServer("/sse");
    expect(sse.res.status, JSON.stringify(sse.body)).toBe(201);
    expect(sse.body.server.tools.map((t: any) => t.name)).toContain("echo");
  });
});

describe("a server's tools in a run", () => {
  it("offers them as <server>__<tool> with their schema, calls them with the headers, and passes the result back", async () => {
    const { name } = await addServer("/tools/mcp", { headers: { "x-api-key": SECRET } });
    const { frames, requests } = await runWithTool(`${name}__echo`, { text: "hello" });
    const offered = requests[0].tools.find((t: any) => t.name === `${name}__echo`);
    expect(offered.input_schema).toMatchObject({ type: "object", properties: { text: { type: "string" } } });
    // After the plugins' tools, so the cached prefix holds while servers come and go.
    const names = requests[0].tools.map((t: any) => t.name);
    expect(names.indexOf(`${name}__echo`)).toBeGreaterThan(names.findIndex((t: string) => t.startsWith("artifacts__")));
    expect(resultOf(requests)).toMatchObject({ content: "echo: hello" });
    expect(resultOf(requests).is_error).toBeUndefined();
    const calls = await control("/calls");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ tool: "echo", args: { text: "hello" } });
    expect(calls[0].headers["x-api-key"]).toBe(SECRET);
    // The same path as the plugins' tools: a tool card's call and result.
    const stream = frames.filter((f) => f.event === "pipeline:stream").map((f) => f.data);
    expect(stream.find((e) => e.type === "tool_call")).toMatchObject({ toolName: `${name}__echo`, input: { text: "hello" } });
    expect(stream.find((e) => e.type === "tool_result")).toMatchObject({ toolName: `${name}__echo`, content: "echo: hello", isError: false });
    expect(frames.at(-1)!.event).toBe("pipeline:complete");
  });

  it("calls a tool with an output schema (its result validated in workerd, without code generation)", async () => {
    const { name } = await addServer("/tools/mcp");
    const { requests } = await runWithTool(`${name}__stats`, { text: "one two three" });
    expect(resultOf(requests)).toMatchObject({ content: '{"chars":13,"words":3}' });
    expect(resultOf(requests).is_error).toBeUndefined();
  });

  it("keeps an error result an error, and images as images", async () => {
    const { name, body } = await addServer("/tools/mcp");
    await neverAsk(body.server.id, ["fail", "image"]);
    const failed = await runWithTool(`${name}__fail`, {});
    expect(resultOf(failed.requests)).toMatchObject({ is_error: true, content: "it failed on purpose" });
    const image = await runWithTool(`${name}__image`, {});
    const content = resultOf(image.requests).content;
    expect(content[0]).toEqual({ type: "text", text: "a red dot" });
    expect(content[1]).toMatchObject({ type: "image", source: { type: "base64", media_type: "image/png" } });
  });

  it("keeps images past what a SQLite row holds (2 MB): stored in parts, sent whole again after a restart", async () => {
    const { name, body } = await addServer("/tools/mcp");
    await neverAsk(body.server.id, ["screenshots"]);
    const { thread, requests } = await runWithTool(`${name}__screenshots`, { count: 3, kb: 900 });
    const images = (content: any[]) => content.filter((b: any) => b.type === "image").map((b: any) => b.source.data as string);

    const sent = images(resultOf(requests).content);
    expect(sent.map((d) => d.length)).toEqual([900_000, 900_000, 900_000]);
    const longest = await longestStored(thread.id);
    expect(longest.length, longest.at).toBeLessThanOrEqual(PART_UNITS);
    // Read back from its parts by a new instance: the next request carries the same images.
    await abortAllDurableObjects();
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.alice.token}` });
    const m = `[[mcp-${crypto.randomUUID()}]]`;
    await script(m, [{ kind: "text", text: "Three of them." }]);
    expect((await alice(`/api/threads/${thread.id}/messages`, { body: { content: `what did you see? ${m}` } })).status).toBe(202);
    expect((await ws.waitForRunEnd(1, 15_000)).at(-1)!.event).toBe("pipeline:complete");
    ws.close();
    const [next] = await upstreamRequests(m);
    const earlier = next.body.messages.flatMap((x: any) => (Array.isArray(x.content) ? x.content : [])).find((b: any) => b.type === "tool_result");
    expect(images(earlier.content)).toEqual(sent);
  });

  it("turns a call past MCP_TOOL_TIMEOUT_MS, or to a server gone away, into an error result, and the run completes", async () => {
    const { name } = await addServer("/tools/mcp");
    const slow = await runWithTool(`${name}__slow`, { ms: 4_000 });
    expect(resultOf(slow.requests)).toMatchObject({ is_error: true, content: expect.stringMatching(/did not answer within 1.5 s/) });
    expect(slow.frames.at(-1)!.event).toBe("pipeline:complete");

    const away = await addServer("/tools/mcp", {}, env.MCP_PROXY_URL);
    expect(away.res.status).toBe(201);
    await control("/proxy/down");
    const gone = await runWithTool(`${away.name}__echo`, { text: "anyone?" });
    expect(resultOf(gone.requests)).toMatchObject({ is_error: true, content: expect.stringMatching(/could not be reached/) });
    expect(gone.frames.at(-1)!.event).toBe("pipeline:complete");
  });

  it("reads the list again when the server says it changed, and the next run offers the new tool", async () => {
    const { name, body } = await addServer("/tools/mcp");
    await neverAsk(body.server.id, ["changes"]);
    await runWithTool(`${name}__changes`, {});
    const server = await until(
      async () => (await (await alice("/api/mcp/servers")).json<any>()).servers.find((s: any) => s.id === body.server.id),
      (s) => s.tools.some((t: any) => t.name === "added_later"),
    );
    expect(server.status).toBe("connected");
    const next = await runWithTool(`${name}__echo`, { text: "again" });
    expect(next.requests[0].tools.map((t: any) => t.name)).toContain(`${name}__added_later`);
  });

  it("leaves out a server the thread turned off, and one turned off for everyone", async () => {
    const { name, body } = await addServer("/tools/mcp");
    const thread = await createThreadVia(alice);
    const patched = await alice(`/api/threads/${thread.id}`, { method: "PATCH", body: { mcpOff: [body.server.id] } });
    expect((await patched.json<any>()).thread.mcpOff).toEqual([body.server.id]);
    const off = await runWithTool(`${name}__echo`, { text: "x" }, {});
    expect(off.requests[0].tools.map((t: any) => t.name)).toContain(`${name}__echo`);
    // The thread's own setting.
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.alice.token}` });
    const m = `[[mcp-off-${crypto.randomUUID()}]]`;
    await script(m, [{ kind: "text", text: "ok" }]);
    await alice(`/api/threads/${thread.id}/messages`, { body: { content: m } });
    await ws.waitForRunEnd();
    ws.close();
    expect((await upstreamRequests(m))[0].body.tools.map((t: any) => t.name)).not.toContain(`${name}__echo`);
    // Disabled for every thread.
    expect((await alice(`/api/mcp/servers/${body.server.id}`, { method: "PATCH", body: { enabled: false } })).status).toBe(200);
    const disabled = await runWithTool(`${name}__echo`, { text: "y" });
    expect(disabled.requests[0].tools.map((t: any) => t.name)).not.toContain(`${name}__echo`);
  });
});

describe("OAuth", () => {
  it("signs in through discovery, registration and PKCE, finishes at the callback, and refreshes an expired token", async () => {
    const { res, body } = await addServer("/auth/mcp");
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.server).toMatchObject({ status: "authenticating", tools: [] });
    const authUrl = new URL(body.server.authUrl);
    expect(authUrl.pathname).toBe("/as/authorize");
    expect(authUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authUrl.searchParams.get("redirect_uri")).toBe("https://app.test/api/mcp/callback");
    // The user signs in; the authorization server sends the browser back with a code.
    const back = await fetch(authUrl, { redirect: "manual" });
    const callback = new URL(back.headers.get("location")!);
    // The state alone authorizes the callback (test/user/mcp-callback.test.ts: forged, reused, expired).
    const done = await alice(`/api/mcp/callback${callback.search}`);
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe(`/settings/connections?mcp=${body.server.id}`);
    const server = (await (await alice("/api/mcp/servers")).json<any>()).servers.find((s: any) => s.id === body.server.id);
    expect(server.status).toBe("connected");
    expect(server.tools.map((t: any) => t.name)).toContain("echo");
    expect(server.authUrl).toBeUndefined();

    const first = await runWithTool(`${server.name}__echo`, { text: "signed in" });
    expect(resultOf(first.requests)).toMatchObject({ content: "echo: signed in" });
    const token = (await control("/calls")).at(-1).headers.authorization;
    expect(token).toMatch(/^Bearer /);
    // The token expires; the next call refreshes it and goes through.
    await control("/auth/ttl?s=1");
    await new Promise((r) => setTimeout(r, 1_200));
    const second = await runWithTool(`${server.name}__echo`, { text: "refreshed" });
    expect(resultOf(second.requests)).toMatchObject({ content: "echo: refreshed" });
    expect((await control("/auth")).refreshes).toBeGreaterThan(0);
    await control("/auth/ttl?s=3600");

    // No token, no header value, no verifier in any answer, and none in D1.
    const answers = [await (await alice("/api/mcp/servers")).text(), await (await alice(`/api/threads/${first.thread.id}/export?format=json`)).text(), await (await alice(`/api/threads/${first.thread.id}/messages`)).text()];
    const bare = token.slice("Bearer ".length);
    for (const text of answers) {
      expect(text).not.toContain(bare);
      expect(text).not.toContain("refresh_token");
      expect(text).not.toContain("code_verifier");
    }
    for (const table of ["threads", "messages", "agent_runs", "context_files"]) {
      const rows = await env.DB.prepare(`SELECT * FROM ${table}`).all();
      expect(JSON.stringify(rows.results)).not.toContain(bare);
    }
  });

  it("a callback with an unknown state goes back to the page with the reason", async () => {
    const res = await alice("/api/mcp/callback?code=x&state=mcp_nope.123");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toMatch(/^\/settings\/connections\?mcp_error=/);
  });
});

describe("two users", () => {
  it("each sees, changes and calls only their own servers", async () => {
    const { body } = await addServer("/tools/mcp", { headers: { "x-api-key": SECRET } });
    const id = body.server.id;
    const bobs = await (await bob("/api/mcp/servers")).text();
    expect(bobs).not.toContain(id);
    await expectError(await bob(`/api/mcp/servers/${id}`, { method: "PATCH", body: { enabled: false } }), 404, "not_found");
    await expectError(await bob(`/api/mcp/servers/${id}`, { method: "DELETE" }), 404, "not_found");
    // Bob's runs are not offered Alice's tools.
    const thread = await createThreadVia(bob);
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.bob.token}` });
    const m = `[[mcp-bob-${crypto.randomUUID()}]]`;
    await script(m, [{ kind: "text", text: "ok" }]);
    await bob(`/api/threads/${thread.id}/messages`, { body: { content: m } });
    await ws.waitForRunEnd();
    ws.close();
    expect(JSON.stringify((await upstreamRequests(m))[0].body.tools)).not.toContain(body.server.name + "__");
    // Alice's is untouched, and goes away only when she removes it.
    const mine = (await (await alice("/api/mcp/servers")).json<any>()).servers.find((s: any) => s.id === id);
    expect(mine.enabled).toBe(true);
    expect((await alice(`/api/mcp/servers/${id}`, { method: "DELETE" })).status).toBe(204);
    await expectError(await alice(`/api/mcp/servers/${id}`, { method: "DELETE" }), 404, "not_found");
  });
});

describe("a server's settings", () => {
  it("sets each tool's approval, refuses an unknown tool or setting, and replaces headers without showing them", async () => {
    const { body } = await addServer("/tools/mcp");
    const id = body.server.id;
    const set = await alice(`/api/mcp/servers/${id}`, { method: "PATCH", body: { approval: { echo: "always", delete_item: "never" } } });
    const { server } = await set.json<any>();
    expect(server.tools.find((t: any) => t.name === "echo").approval).toBe("always");
    expect(server.tools.find((t: any) => t.name === "delete_item").approval).toBe("never");
    await expectError(await alice(`/api/mcp/servers/${id}`, { method: "PATCH", body: { approval: { nope: "always" } } }), 400, "invalid_request");
    await expectError(await alice(`/api/mcp/servers/${id}`, { method: "PATCH", body: { approval: { echo: "sometimes" } } }), 400, "invalid_request");
    await expectError(await alice(`/api/mcp/servers/${id}`, { method: "PATCH", body: {} }), 400, "invalid_request");
    const headers = await alice(`/api/mcp/servers/${id}`, { method: "PATCH", body: { headers: { authorization: `Bearer ${SECRET}` } } });
    const text = await headers.text();
    expect(headers.status).toBe(200);
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text).server.headerNames).toEqual(["authorization"]);
    await expectError(await alice("/api/mcp/servers/mcp_unknown", { method: "PATCH", body: { enabled: true } }), 404, "not_found");
  });
});

// Unused in some runs: callApp keeps the import list honest for the token env's app.
void callApp;
