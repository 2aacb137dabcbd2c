// MCP servers (PROTOCOL.md "MCP servers"): a user's connections, their tools, and the approval a
// tool call may wait for. Headers and OAuth tokens have no field here: they never leave the user's object.

/**
 * A server's name: the prefix of its tools' names (`<server>__<tool>`), unique per user. `__` inside
 * it is refused too (see `mcpServerNameProblem`), so a tool's full name splits at its first `__`.
 */
export const MCP_SERVER_NAME = /^[a-z0-9_-]{1,32}$/;

/** Why `name` cannot name a server, or null. */
export function mcpServerNameProblem(name: string): string | null {
  if (!MCP_SERVER_NAME.test(name)) return "1-32 of a-z, 0-9, _ and -";
  if (name.includes("__")) return "no double underscore (it separates the server from the tool)";
  return null;
}
/** A server's tool list is cut at this many tools. */
export const MCP_MAX_TOOLS = 100;
/** How many servers one user may keep; past it an add is 429 `rate_limited`. */
export const MCP_MAX_SERVERS_PER_USER = 20;
/** A tool name as the Messages API takes it (after the server's prefix and `__`). */
export const MCP_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** At most this many headers per server, each name and value bounded. */
export const MCP_MAX_HEADERS = 20;
export const MCP_MAX_HEADER_NAME = 100;
export const MCP_MAX_HEADER_VALUE = 4_000;

export const MCP_APPROVALS = ["always", "never", "auto"] as const;
/** `always`: ask every time; `never`: never ask; `auto`: ask unless the tool's hints say it only reads. */
export type McpApproval = (typeof MCP_APPROVALS)[number];

export type McpStatus = "connected" | "authenticating" | "failed";

export interface McpTool {
  /** The name the model calls it by, after `<server>__` (sanitized: `[a-zA-Z0-9_-]`). */
  name: string;
  /** The server's own name for it, when sanitizing changed it. */
  originalName?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  approval: McpApproval;
  /** Whether a call under `auto` asks (the MCP hints say it may change something). */
  asks: boolean;
}

export interface McpServer {
  id: string;
  name: string;
  url: string;
  enabled: boolean;
  status: McpStatus;
  /** Where the user signs in, while `status` is `authenticating`. */
  authUrl?: string;
  /** Why the server failed (or its last call did not reach it). */
  error?: string;
  /** The names of the headers sent with every request; their values are never answered. */
  headerNames: string[];
  tools: McpTool[];
  createdAt: number;
}

export interface McpServerBody {
  name: string;
  url: string;
  headers?: Record<string, string>;
}

export interface McpServerPatch {
  enabled?: boolean;
  headers?: Record<string, string>;
  approval?: Record<string, McpApproval>;
}

/** A tool call waiting for the user's decision (also broadcast as `tool:approval`). */
export interface PendingApproval {
  runId: string;
  toolUseId: string;
  toolName: string;
  /** The call's input as the model gave it (a JSON object). */
  input: Record<string, object | string | number | boolean | null>;
  /** When it is declined by itself (APPROVAL_TIMEOUT_S after it was asked). */
  expiresAt: number;
}
