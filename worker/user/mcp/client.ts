// One connection to an MCP server, through the official SDK's client: Streamable HTTP, or SSE where
// that is all the server speaks; OAuth through the SDK's flow, with what it keeps stored in the server's
// secrets (stored-auth.ts). Whatever the server answers is bounded here before anyone else sees it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { IMAGE_TYPES, MCP_MAX_TOOLS, type AttachmentType } from "../../../protocol";
import type { McpResult } from "../../lib/mcp-offer";
import { VERSION } from "../../env";
import { matchesType } from "../../lib/sniff";
import { guardedFetch, Refused } from "./address";
import type { ListedTool } from "./servers";

export interface Reach {
  allowLocal: boolean;
  /** A tool call's limit (MCP_TOOL_TIMEOUT_MS); connecting and listing get a shorter one. */
  toolTimeoutMs: number;
}

/** The server asked for OAuth, and the user must sign in at `authUrl` first. */
export class NeedsSignIn extends Error {
  constructor(readonly authUrl: string) {
    super("The server asks you to sign in");
  }
}

const CONNECT_TIMEOUT_MS = 15_000;
const MAX_DESCRIPTION = 2_000;
const MAX_SCHEMA_BYTES = 32_000;
/** About 64,000 tokens of tool definitions from one server. */
const MAX_TOOL_LIST_CHARS = 256_000;
/**
 * What reading one server's tool list may take, however its pages go on (each has a nextCursor) or
 * grow: pages, their tools' bytes as listed (before MAX_TOOL_LIST_CHARS cuts them), and time.
 */
const MAX_TOOL_PAGES = 10;
const MAX_TOOL_LIST_BYTES = 1_048_576;
const LIST_TIMEOUT_MS = 30_000;
const MAX_RESULT_TEXT = 100_000;
const MAX_IMAGES = 4;
const MAX_IMAGE_BASE64 = 1_500_000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface Connection {
  client: Client;
  close(): Promise<void>;
}

/**
 * Connects and initializes: Streamable HTTP first; a server that refuses it without asking for
 * sign-in gets the older SSE transport. `auth` carries the OAuth state; its redirect is captured.
 */
export async function connect(url: string, headers: Record<string, string>, auth: OAuthClientProvider & { authUrl?: string }, reach: Reach, onToolsChanged: () => void): Promise<Connection> {
  const fetchFn = guardedFetch(reach.allowLocal, reach.toolTimeoutMs + 5_000, Object.keys(headers));
  const requestInit = { headers };
  const attempt = async (transport: Transport): Promise<Connection> => {
    const client = new Client({ name: "edge-orchestrator", version: VERSION }, { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => onToolsChanged());
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    } catch (err) {
      // A transport left open after a failed start would go on retrying in the background (SSE does).
      await transport.close().catch(() => {});
      throw err;
    }
    return { client, close: () => client.close().catch(() => {}) };
  };
  try {
    return await attempt(new StreamableHTTPClientTransport(new URL(url), { requestInit, authProvider: auth, fetch: fetchFn }));
  } catch (first) {
    if (first instanceof UnauthorizedError) throw auth.authUrl ? new NeedsSignIn(auth.authUrl) : new Error("The server refused the credentials");
    try {
      return await attempt(new SSEClientTransport(new URL(url), { requestInit, authProvider: auth, fetch: fetchFn, eventSourceInit: { fetch: fetchFn } }));
    } catch (second) {
      if (second instanceof UnauthorizedError && auth.authUrl) throw new NeedsSignIn(auth.authUrl);
      throw first;
    }
  }
}

type RawTool = { name: string; description?: string; inputSchema: unknown; annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean } };

/**
 * The server's tools, bounded (boundedTools): pages are read up to MAX_TOOL_PAGES, MAX_TOOL_LIST_BYTES
 * and LIST_TIMEOUT_MS, and the page that passes the bytes is left out, as tools past the count are.
 */
export async function listTools(client: Client, maxName: number): Promise<ListedTool[]> {
  const raw: RawTool[] = [];
  const signal = AbortSignal.timeout(LIST_TIMEOUT_MS);
  let cursor: string | undefined;
  let bytes = 0;
  for (let pages = 0; pages < MAX_TOOL_PAGES && raw.length < MCP_MAX_TOOLS; pages++) {
    const page = await client.listTools(cursor ? { cursor } : {}, { timeout: CONNECT_TIMEOUT_MS, signal });
    bytes += new TextEncoder().encode(JSON.stringify(page.tools)).length;
    if (bytes > MAX_TOOL_LIST_BYTES) break;
    raw.push(...page.tools);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return boundedTools(raw, maxName);
}

/**
 * At most MCP_MAX_TOOLS tools, together at most MAX_TOOL_LIST_CHARS of names, descriptions and schemas
 * (every request carries them all; the rest are left out, as past the count), each name made one the
 * Messages API takes: `[a-zA-Z0-9_-]`, and short enough (`maxName`) that `<server>__<tool>` stays within
 * its 64 characters.
 */
export function boundedTools(raw: RawTool[], maxName: number): ListedTool[] {
  const taken = new Set<string>();
  const tools: ListedTool[] = [];
  let chars = 0;
  for (const t of raw.slice(0, MCP_MAX_TOOLS)) {
    const name = unique(sanitize(t.name, maxName), taken, maxName);
    const hints = t.annotations ?? {};
    const tool = {
      name,
      ...(name !== t.name ? { originalName: t.name } : {}),
      description: (t.description ?? "").slice(0, MAX_DESCRIPTION),
      inputSchema: boundedSchema(t.inputSchema),
      mayChange: !(hints.readOnlyHint === true || hints.destructiveHint === false),
    };
    chars += name.length + tool.description.length + JSON.stringify(tool.inputSchema).length;
    if (chars > MAX_TOOL_LIST_CHARS) break;
    tools.push(tool);
  }
  return tools;
}

/** One call, bounded in time; an error result stays one, and a fault becomes one (the run goes on). */
export async function callTool(client: Client, tool: string, input: unknown, timeoutMs: number, signal?: AbortSignal): Promise<McpResult> {
  const args = input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: timeoutMs, signal });
  return resultOf(result as { content?: unknown; structuredContent?: unknown; isError?: boolean });
}

export function resultOf(result: { content?: unknown; structuredContent?: unknown; isError?: boolean }): McpResult {
  const texts: string[] = [];
  const images: McpResult["images"] = [];
  for (const block of Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : []) {
    if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
    else if (block.type === "image" && typeof block.data === "string" && (IMAGE_TYPES as readonly string[]).includes(String(block.mimeType)) && block.data.length <= MAX_IMAGE_BASE64 && images.length < MAX_IMAGES) {
      if (isImage(String(block.mimeType), block.data)) images.push({ mediaType: String(block.mimeType), data: block.data });
      else texts.push(`[an image that is not the ${String(block.mimeType)} it says, left out]`);
    } else if (block.type === "resource_link" || block.type === "resource") {
      const res = (block.resource ?? block) as { uri?: unknown; text?: unknown };
      texts.push(typeof res.text === "string" ? res.text : `[resource ${String(res.uri ?? "")}]`);
    } else texts.push(`[${String(block.type)} content left out]`);
  }
  if (!texts.length && result.structuredContent !== undefined) texts.push(JSON.stringify(result.structuredContent));
  let content = texts.join("\n");
  if (content.length > MAX_RESULT_TEXT) content = `${content.slice(0, MAX_RESULT_TEXT)}\n[cut at ${MAX_RESULT_TEXT} characters]`;
  if (!content && !images.length) content = result.isError ? "The tool failed without saying why" : "(no content)";
  return { content, images, isError: result.isError === true };
}

/**
 * A failure as the user reads it, in the app's own words: what failed, never what the server said
 * (its body, an error's text), which would reach the user, the thread and the model as ours.
 */
export function reason(err: unknown): string {
  if (err instanceof Refused) return err.message;
  if (isTimeout(err)) return "it did not answer in time";
  if (err instanceof StreamableHTTPError || err instanceof SseError) {
    const status = err.code ?? 0;
    return status >= 100 && status < 600 ? `it answered HTTP ${status}` : "it does not speak MCP";
  }
  if (err instanceof OAuthError) return `its sign-in answered ${/^[a-z_]{1,40}$/.test(err.errorCode) ? err.errorCode : "an error"}`;
  if (err instanceof UnauthorizedError) return "it refused the credentials";
  if (err instanceof McpError) return err.code === ErrorCode.ConnectionClosed ? "the connection closed" : `it answered MCP error ${err.code}`;
  if (err instanceof SyntaxError || (err instanceof Error && err.name === "ZodError")) return "it does not speak MCP";
  return "the connection failed";
}

/** The server did not answer within a limit of ours (a request's, or the whole list's). */
export function isTimeout(err: unknown): boolean {
  if (err instanceof McpError) return err.code === ErrorCode.RequestTimeout;
  return err instanceof Error && err.name === "TimeoutError";
}

function sanitize(name: string, max: number): string {
  const clean = name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, max);
  return clean || "tool";
}

function unique(name: string, taken: Set<string>, max: number): string {
  let candidate = name;
  for (let i = 2; taken.has(candidate); i++) candidate = `${name.slice(0, max - 4)}_${i}`;
  taken.add(candidate);
  return candidate;
}

/**
 * Base64 of an image of that type, by its first bytes. The API refuses a request with a broken image,
 * and a tool's result is sent again with every later request: one bad image would fail the thread.
 */
function isImage(mediaType: string, data: string): boolean {
  if (data.length % 4 !== 0 || !BASE64.test(data)) return false;
  const head = atob(data.slice(0, 16));
  return matchesType(mediaType as AttachmentType, Uint8Array.from(head, (c) => c.charCodeAt(0)));
}

/** An object schema the API takes; anything else (too big, not an object) becomes an open one. */
function boundedSchema(schema: unknown): Record<string, unknown> {
  const open = { type: "object" };
  if (!schema || typeof schema !== "object" || (schema as { type?: unknown }).type !== "object") return open;
  return JSON.stringify(schema).length <= MAX_SCHEMA_BYTES ? (schema as Record<string, unknown>) : open;
}
