// /mcp driven by the MCP SDK's own Client over Streamable HTTP, with an API key: every tool listed and
// called, against the fake Messages API; a user's tools reach that user's threads and projects alone.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SELF } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_SERVER_TOOLS } from "../../protocol";
import { api, createThread, json, marker, script, settle, until } from "../helpers";
import { newKey } from "./keys";

let mcp: Client;

async function connect(secret: string): Promise<Client> {
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("https://app.test/mcp"), {
    requestInit: { headers: { authorization: `Bearer ${secret}` } },
    fetch: (input, init) => SELF.fetch(input as RequestInfo, init as RequestInit),
  });
  await client.connect(transport);
  return client;
}

const textOf = (result: any) => result.content.map((c: any) => c.text).join("\n");
const jsonOf = (result: any) => JSON.parse(result.content[0].text);

beforeAll(async () => {
  mcp = await connect((await newKey("mcp tests")).secret);
});
afterAll(async () => {
  await mcp.close();
});

describe("the MCP server at /mcp", () => {
  it("lists its tools, each with an input schema", async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_SERVER_TOOLS].sort());
    for (const tool of tools) expect(tool.inputSchema.type).toBe("object");
  });

  it("asks in a new thread and waits for the answer; then asks again in that thread", async () => {
    const m = marker("mcp-ask");
    await script(m, [{ kind: "text", text: "The orchestrator answers over MCP." }, { kind: "text", text: "And again, in the same thread." }]);
    const first = await mcp.callTool({ name: "ask", arguments: { prompt: `${m} Hello over MCP` } });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ text: "The orchestrator answers over MCP.", status: "completed", threadId: expect.stringMatching(/^thr_/) });
    const threadId = (first.structuredContent as any).threadId;
    const second = await mcp.callTool({ name: "ask", arguments: { prompt: `${m} once more`, threadId } });
    expect(second.structuredContent).toMatchObject({ threadId, text: "And again, in the same thread." });
    const thread = (await json(api(`/api/threads/${threadId}`))).thread;
    expect(thread.kind).toBe("api");
    await settle();

    // read_thread: the conversation as the app keeps it.
    const read = jsonOf(await mcp.callTool({ name: "read_thread", arguments: { threadId } }));
    expect(read.messages.map((x: any) => `${x.role}: ${x.content}`)).toEqual([
      `user: ${m} Hello over MCP`,
      "assistant: The orchestrator answers over MCP.",
      `user: ${m} once more`,
      "assistant: And again, in the same thread.",
    ]);
    expect(jsonOf(await mcp.callTool({ name: "read_thread", arguments: { threadId, limit: 1 } })).messages).toHaveLength(1);

    // list_threads and search_threads find it.
    const listed = jsonOf(await mcp.callTool({ name: "list_threads", arguments: { limit: 50 } }));
    expect(listed.threads.map((t: any) => t.id)).toContain(threadId);
    const found = await until(
      async () => jsonOf(await mcp.callTool({ name: "search_threads", arguments: { query: "orchestrator answers" } })),
      (r) => r.results.some((x: any) => x.threadId === threadId),
    );
    expect(found.results[0]).toMatchObject({ threadId, snippet: expect.stringContaining("<mark>") });
  });

  it("pages list_threads with before", async () => {
    await createThread({ name: "one more" });
    await createThread({ name: "and another" });
    const first = jsonOf(await mcp.callTool({ name: "list_threads", arguments: { limit: 1 } }));
    expect(first.threads).toHaveLength(1);
    expect(first.nextBefore).toEqual(expect.any(String));
    const next = jsonOf(await mcp.callTool({ name: "list_threads", arguments: { limit: 1, before: first.nextBefore } }));
    expect(next.threads[0].id).not.toBe(first.threads[0].id);
    expect((await mcp.callTool({ name: "list_threads", arguments: { before: "not a cursor" } })).isError).toBe(true);
  });

  it("lists projects, and asks in a new thread of one", async () => {
    const project = (await json(api("/api/projects", { body: { name: "MCP project", instructions: "Speak like a pirate." } }))).project;
    const listed = jsonOf(await mcp.callTool({ name: "list_projects", arguments: {} }));
    expect(listed.projects).toContainEqual({ id: project.id, name: "MCP project", instructions: "Speak like a pirate." });
    const m = marker("mcp-project");
    await script(m, [{ kind: "text", text: "Arr." }]);
    const asked = await mcp.callTool({ name: "ask", arguments: { prompt: `${m} hi`, projectId: project.id } });
    const threadId = (asked.structuredContent as any).threadId;
    expect((await json(api(`/api/threads/${threadId}`))).thread.projectId).toBe(project.id);
    await settle();
  });

  it("answers a tool's failure as an error result: an unknown thread, an unknown model", async () => {
    const unknown = await mcp.callTool({ name: "read_thread", arguments: { threadId: "thr_0000000000000000000" } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/not found/i);
    const model = await mcp.callTool({ name: "ask", arguments: { prompt: "hi", model: "gpt-4o" } });
    expect(model.isError).toBe(true);
    expect(textOf(model)).toMatch(/model/);
  });

  it("refuses a request without a valid key", async () => {
    await expect(connect("eo_nope")).rejects.toThrow();
    const res = await SELF.fetch("https://app.test/mcp", { method: "POST", headers: { "content-type": "application/json", "x-api-key": "eo_nope" }, body: "{}" });
    expect(res.status).toBe(401);
  });
});
