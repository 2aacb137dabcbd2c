// The user's MCP servers, in their object's SQLite. The secret half of a row (headers, OAuth client
// registration, tokens, the PKCE verifier) is kept apart from what `publicServer` answers, and no other
// table, log line or export ever gets it.
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { McpApproval, McpServer, McpStatus, McpTool } from "../../../protocol";
import { newId } from "../../lib/ids";

/** A tool as the server listed it, with its hints (what `asks` is decided from). */
export interface ListedTool {
  name: string;
  originalName?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The MCP hints say it may change something (not read-only, not non-destructive). */
  mayChange: boolean;
}

/** What the user's object alone knows of a server. */
export interface ServerSecrets {
  headers: Record<string, string>;
  oauth?: {
    redirectUrl: string;
    /** The sign-in under way (sign-in-state.ts): its state, good once until stateExpiresAt. */
    state?: string;
    stateExpiresAt?: number;
    codeVerifier?: string;
    client?: OAuthClientInformationMixed;
    tokens?: OAuthTokens;
  };
}

export interface ServerRow {
  id: string;
  name: string;
  url: string;
  enabled: boolean;
  status: McpStatus;
  authUrl: string | null;
  error: string | null;
  tools: ListedTool[];
  approval: Record<string, McpApproval>;
  toolsAt: number;
  createdAt: number;
  secrets: ServerSecrets;
}

type Stored = {
  id: string; name: string; url: string; enabled: number; status: string; auth_url: string | null; error: string | null;
  tools: string; approval: string; tools_at: number; created_at: number; secrets: string;
};

const fromStored = (r: Stored): ServerRow => ({
  id: r.id,
  name: r.name,
  url: r.url,
  enabled: r.enabled === 1,
  status: r.status as McpStatus,
  authUrl: r.auth_url,
  error: r.error,
  tools: JSON.parse(r.tools) as ListedTool[],
  approval: JSON.parse(r.approval) as Record<string, McpApproval>,
  toolsAt: r.tools_at,
  createdAt: r.created_at,
  secrets: JSON.parse(r.secrets) as ServerSecrets,
});

/** Whether a call of `tool` waits for the user: its setting, or under `auto` its hints. */
export function asks(tool: ListedTool, approval: McpApproval | undefined): boolean {
  const setting = approval ?? "auto";
  return setting === "always" || (setting === "auto" && tool.mayChange);
}

export function publicServer(row: ServerRow): McpServer {
  const tools: McpTool[] = row.tools.map((t) => ({
    name: t.name,
    ...(t.originalName ? { originalName: t.originalName } : {}),
    description: t.description,
    inputSchema: t.inputSchema,
    approval: row.approval[t.name] ?? "auto",
    asks: t.mayChange,
  }));
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    enabled: row.enabled,
    status: row.status,
    ...(row.status === "authenticating" && row.authUrl ? { authUrl: row.authUrl } : {}),
    ...(row.error ? { error: row.error } : {}),
    headerNames: Object.keys(row.secrets.headers),
    tools,
    createdAt: row.createdAt,
  };
}

export class McpServers {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS mcp_servers (
      id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, url TEXT NOT NULL, enabled INTEGER NOT NULL,
      status TEXT NOT NULL, auth_url TEXT, error TEXT, tools TEXT NOT NULL, approval TEXT NOT NULL,
      tools_at INTEGER NOT NULL, created_at INTEGER NOT NULL, secrets TEXT NOT NULL
    )`);
  }

  /** A new row's id, before it is stored (its OAuth state names it). */
  static newId(now = Date.now()): string {
    return newId("mcp", now);
  }

  put(row: ServerRow): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO mcp_servers VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      row.id, row.name, row.url, row.enabled ? 1 : 0, row.status, row.authUrl, row.error,
      JSON.stringify(row.tools), JSON.stringify(row.approval), row.toolsAt, row.createdAt, JSON.stringify(row.secrets),
    );
  }

  get(id: string): ServerRow | null {
    const [r] = this.sql.exec<Stored>("SELECT * FROM mcp_servers WHERE id = ?", id).toArray();
    return r ? fromStored(r) : null;
  }

  byName(name: string): ServerRow | null {
    const [r] = this.sql.exec<Stored>("SELECT * FROM mcp_servers WHERE name = ?", name).toArray();
    return r ? fromStored(r) : null;
  }

  count(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM mcp_servers").one().n;
  }

  list(): ServerRow[] {
    return this.sql.exec<Stored>("SELECT * FROM mcp_servers ORDER BY name").toArray().map(fromStored);
  }

  remove(id: string): boolean {
    return this.sql.exec("DELETE FROM mcp_servers WHERE id = ?", id).rowsWritten > 0;
  }
}
