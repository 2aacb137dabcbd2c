// MCP servers (PROTOCOL.md, "MCP servers"): kept by the caller's own object (worker/user/mcp/), which
// also makes every call to them. The OAuth callback is a browser's redirect, authorized by its state
// alone: it answers with a redirect back to the app's Connections page, saying how the sign-in went.
import { Hono } from "hono";
import { z } from "zod";
import { MCP_APPROVALS, MCP_MAX_HEADER_NAME, MCP_MAX_HEADER_VALUE, MCP_MAX_HEADERS, MEMORY_TOOL, mcpServerNameProblem } from "../../protocol";
import { PLUGINS } from "../plugins/registry";
import type { Env } from "../env";
import type { McpAnswer } from "../user/mcp";
import { signInHolder } from "../user/mcp/sign-in-state";
import { userStubById } from "../user/stub";
import { askUser, callerOf, fromRoom, roomStub, type AppEnv } from "./app-env";
import { ApiError } from "./errors";
import { reply } from "./reply";
import { jsonBody } from "./validate";

/** Where the sign-in's redirect lands in the web app. */
export const CONNECTIONS_PAGE = "/settings/connections";

const headerName = z.string().max(MCP_MAX_HEADER_NAME).regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "not a header name");
const headerValue = z.string().max(MCP_MAX_HEADER_VALUE).regex(/^[^\r\n]*$/, "a header value is one line");
const headers = z.record(headerName, headerValue).refine((h) => Object.keys(h).length <= MCP_MAX_HEADERS, `at most ${MCP_MAX_HEADERS} headers`);
const createBody = z.strictObject({
  name: z
    .string()
    .superRefine((n, ctx) => {
      const problem = mcpServerNameProblem(n);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    // A plugin's name would make its tools' names and the server's the same (`<name>__<tool>`).
    .refine((n) => !PLUGINS.some((p) => p.name === n) && n !== MEMORY_TOOL, "a plugin of the app has this name"),
  url: z.url().max(2_000),
  headers: headers.optional(),
});
const patchBody = z
  .strictObject({ enabled: z.boolean().optional(), headers: headers.optional(), approval: z.record(z.string().max(64), z.enum(MCP_APPROVALS)).optional() })
  .refine((b) => Object.keys(b).length > 0, "Give enabled, headers or approval");

function answered<T>(a: McpAnswer<T>): T {
  if (!a.ok) throw new ApiError(a.code, a.message);
  return a.value;
}

export const mcpRoutes = new Hono<AppEnv>()
  .post("/servers", jsonBody("POST /api/mcp/servers", createBody), async (c) => {
    const server = answered(await askUser(c, (user) => user.addMcpServer(c.req.valid("json"), new URL(c.req.url).origin)));
    return reply(c, "POST /api/mcp/servers", { server }, 201);
  })
  .get("/servers", async (c) => reply(c, "GET /api/mcp/servers", { servers: await askUser(c, (user) => user.mcpServers()) }))
  .patch("/servers/:serverId", jsonBody("PATCH /api/mcp/servers/:serverId", patchBody), async (c) => {
    const server = answered(await askUser(c, (user) => user.updateMcpServer(c.req.param("serverId"), c.req.valid("json"))));
    return reply(c, "PATCH /api/mcp/servers/:serverId", { server });
  })
  .delete("/servers/:serverId", async (c) => {
    if (!(await askUser(c, (user) => user.removeMcpServer(c.req.param("serverId"))))) throw new ApiError("not_found", "No such server");
    return c.body(null, 204);
  });

/**
 * The OAuth callback, mounted before sign-in (app.ts): the browser comes back from the server's
 * sign-in page with no bearer token, so the one-time `state` alone says whose sign-in it ends
 * (user/mcp/sign-in-state.ts), and no caller identity from the request's headers is looked at.
 */
export const mcpCallbackRoute = new Hono<AppEnv>().get("/callback", async (c) => {
  const answer = await finishSignIn(c.env, c.req.query(), c.var.requestId);
  const page = new URL(CONNECTIONS_PAGE, c.req.url);
  if (answer.ok) page.searchParams.set("mcp", answer.value.serverId);
  else page.searchParams.set("mcp_error", answer.message);
  return c.redirect(page.pathname + page.search, 302);
});

async function finishSignIn(env: Env, q: Record<string, string>, requestId: string): Promise<McpAnswer<{ serverId: string }>> {
  const state = (q.state ?? "").slice(0, 200);
  const holder = signInHolder(env, state);
  if (!holder) return { ok: false, code: "not_found", message: q.state ? "This sign-in is not one under way" : "The sign-in came back without its state" };
  try {
    return await userStubById(env, holder).mcpCallback(state, q.code?.slice(0, 2_000), (q.error_description ?? q.error)?.slice(0, 500));
  } catch (err) {
    console.warn(JSON.stringify({ level: "warn", msg: "the user's object did not answer the sign-in", requestId, error: String(err) }));
    return { ok: false, code: "unavailable", message: "Your connections could not be reached; sign in again in a moment" };
  }
}

/** Routes under /api/threads/:id: the user's decision on a call that waits for it. */
export const approvalRoutes = new Hono<AppEnv>().post("/:id/runs/:runId/approvals/:toolUseId", jsonBody("POST /api/threads/:id/runs/:runId/approvals/:toolUseId", z.strictObject({ approve: z.boolean() })), async (c) => {
  const { runId, toolUseId } = c.req.param();
  const decided = fromRoom(await roomStub(c.env, c.req.param("id")).decide(callerOf(c), runId, toolUseId, c.req.valid("json").approve));
  return reply(c, "POST /api/threads/:id/runs/:runId/approvals/:toolUseId", decided);
});
