// The test MCP servers (test/mcp/server.mjs), which scripts/browser-test.mjs starts with the suite:
//   MCP_URL          their base URL: `${MCP_URL}/tools/mcp` is the "test-tools" server (echo, read-only;
//                    delete_item, destructive, so a call waits for the user's approval; …)
//   MCP_CONTROL_URL  what they were called with (GET /calls: every real tool execution, oldest first)
// The app's servers are the user's own (AUTH_MODE=none: one user for every test file), so a test that
// adds one removes it when it ends: the other files' threads would otherwise offer its tools too.
import { api } from "./helpers.mjs";

export const MCP_URL = must("MCP_URL");
const MCP_CONTROL_URL = must("MCP_CONTROL_URL");

function must(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the browser tests with \`npm run test:browser\``);
  return value;
}

/** The "test-tools" server's address. */
export const TOOLS_URL = `${MCP_URL}/tools/mcp`;

/**
 * The tool executions the MCP servers saw: `{ server, tool, args, headers, sessionId }` (`server` is
 * the mount, "tools" for TOOLS_URL), optionally only those of `tool`.
 */
export async function mcpCalls(tool) {
  const res = await fetch(`${MCP_CONTROL_URL}/calls`);
  if (!res.ok) throw new Error(`the MCP control API answered ${res.status}`);
  const calls = await res.json();
  return tool ? calls.filter((c) => c.tool === tool) : calls;
}

/** Adds a server through the API (answers once its tools are read). */
export async function addServer(name, { url = TOOLS_URL, headers } = {}) {
  const { server } = await api("/api/mcp/servers", { body: { name, url, ...(headers ? { headers } : {}) } });
  return server;
}

/** Removes the user's servers named `name` (none is fine). */
export async function removeServer(name) {
  const { servers } = await api("/api/mcp/servers");
  for (const s of servers.filter((s) => s.name === name)) await api(`/api/mcp/servers/${s.id}`, { method: "DELETE" });
}
