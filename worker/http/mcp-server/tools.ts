// The MCP server's tools (PROTOCOL.md, "/mcp"): the user's threads searched, listed and read, a question
// asked in a thread (an answer waited for), and the user's projects. Each reaches the user's own data
// only: their object, and their threads' objects as their owner.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { MCP_ASK_WAIT_MS, MESSAGE_PAGE } from "../../../protocol";
import { VERSION, configOf, type Env } from "../../env";
import { decodeCursor } from "../../user/directory";
import { userStub } from "../../user/stub";
import { fromRoom, roomStub } from "../app-env";
import { ApiError } from "../errors";
import { checkV1Model } from "../v1/request";
import { askThread, type AskOrigin } from "../v1/thread-ask";

const json = (value: unknown) => ({ content: [{ type: "text" as const, text: JSON.stringify(value, null, 2) }] });
const failed = (message: string) => ({ content: [{ type: "text" as const, text: message }], isError: true });

/** A tool's failure the caller can act on (an unknown thread, a bad cursor) is its answer, marked as an error. */
async function answer<T>(run: () => Promise<T>) {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ApiError) return failed(err.message);
    throw err;
  }
}

export function mcpTools(env: Env, from: AskOrigin, userId: string): McpServer {
  const user = userStub(env, userId);
  const mcp = new McpServer(
    { name: "edge-orchestrator", version: VERSION },
    { instructions: "The user's chat threads with Claude in this app: search, list and read them, ask in one (the app's tools, memory and projects answer), and list projects." },
  );

  mcp.registerTool(
    "search_threads",
    {
      title: "Search threads",
      description: "Full-text search over the user's threads' messages. Answers the best matches: thread, message, a snippet with the hits in <mark>.",
      inputSchema: { query: z.string().min(1).max(500), limit: z.number().int().min(1).max(50).optional() },
      annotations: { readOnlyHint: true },
    },
    ({ query, limit }) => answer(async () => json({ results: await user.search(query, limit ?? 10) })),
  );

  mcp.registerTool(
    "list_threads",
    {
      title: "List threads",
      description: "The user's threads, most recently active first. Give `before` (a previous answer's nextBefore) for the next page.",
      inputSchema: { limit: z.number().int().min(1).max(200).optional(), before: z.string().max(200).optional() },
      annotations: { readOnlyHint: true },
    },
    ({ limit, before }) =>
      answer(async () => {
        const cursor = before ? decodeCursor(before) : undefined;
        if (cursor === null) throw new ApiError("invalid_request", "`before` is not a cursor this tool gave");
        const page = await user.threads({ limit: limit ?? 20, ...(cursor ? { cursor } : {}) });
        const threads = page.threads.map((t) => ({ id: t.id, name: t.name, kind: t.kind, status: t.status, model: t.model, projectId: t.projectId ?? null, lastActivity: new Date(t.lastActivity).toISOString() }));
        return json({ threads, ...(page.nextCursor ? { nextBefore: page.nextCursor } : {}) });
      }),
  );

  mcp.registerTool(
    "read_thread",
    {
      title: "Read a thread",
      description: "A thread's conversation on its current branch: the user's and the assistant's text messages, oldest first (the last `limit`).",
      inputSchema: { threadId: z.string().min(1).max(100), limit: z.number().int().min(1).max(500).optional() },
      annotations: { readOnlyHint: true },
    },
    ({ threadId, limit }) =>
      answer(async () => {
        const who = { threadId, userId, requestId: from.requestId };
        const room = roomStub(env, threadId);
        const thread = fromRoom(await room.get(who));
        const { messages } = fromRoom(await room.messages(who, { limit: limit ?? MESSAGE_PAGE, kinds: ["text"] }));
        return json({
          thread: { id: thread.id, name: thread.name, model: thread.model, instructions: thread.instructions },
          messages: messages.map((m) => ({ id: m.id, role: m.role, content: m.content, createdAt: new Date(m.createdAt).toISOString() })),
        });
      }),
  );

  mcp.registerTool(
    "ask",
    {
      title: "Ask",
      description: `Asks in one of the user's threads (threadId) or a new one, and waits for the answer (up to ${MCP_ASK_WAIT_MS / 1000} s; past it, the answer goes on in the thread). The thread's tools, memory and project answer as in the app.`,
      inputSchema: {
        prompt: z.string().min(1).max(100_000),
        threadId: z.string().min(1).max(100).optional(),
        projectId: z.string().min(1).max(100).optional(),
        model: z.string().min(1).max(200).optional(),
      },
    },
    ({ prompt, threadId, projectId, model }) =>
      answer(async () => {
        const chosen = model ?? configOf(env).defaultModel;
        await checkV1Model(env, chosen);
        const session = await user.apiRequest(null, null, projectId ?? null);
        if (!session) throw new ApiError("unauthorized", "This user's object does not answer");
        const asked = await askThread(from, session, {
          conversation: { history: [], prompt },
          model: chosen,
          source: "mcp",
          waitMs: MCP_ASK_WAIT_MS,
          ...(threadId ? { threadId } : {}),
          ...(projectId ? { projectId } : {}),
        });
        for await (const _ of asked.answer.pieces());
        const { outcome, text } = asked.answer;
        const status = outcome.status === "failed" ? `failed: ${outcome.code}: ${outcome.message}` : outcome.status;
        return {
          content: [{ type: "text" as const, text: text || `(no text: ${status})` }, { type: "text" as const, text: `threadId: ${asked.threadId}` }],
          structuredContent: { threadId: asked.threadId, text, status: outcome.status },
          ...(outcome.status === "failed" && outcome.code !== "aborted" ? { isError: true } : {}),
        };
      }),
  );

  mcp.registerTool(
    "list_projects",
    {
      title: "List projects",
      description: "The user's projects (a thread asked in one reads its instructions and files).",
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    () => answer(async () => json({ projects: (await user.projects()).map((p) => ({ id: p.id, name: p.name, instructions: p.instructions })) })),
  );

  return mcp;
}
