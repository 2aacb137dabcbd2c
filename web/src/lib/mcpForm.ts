// The add-a-server form's draft, and POST /api/mcp/servers's body made from it, or what is wrong
// with it, field by field, in words (the server checks again; this spares a round trip and says more).

import { MCP_MAX_HEADER_NAME, MCP_MAX_HEADER_VALUE, MCP_MAX_HEADERS, mcpServerNameProblem, type McpServerBody } from "@protocol";

export interface HeaderRow {
  /** A stable key for the row (React's), not sent. */
  key: number;
  name: string;
  value: string;
}

export interface ServerDraft {
  name: string;
  url: string;
  headers: HeaderRow[];
}

export type ServerField = "name" | "url" | "headers";
export type ServerProblems = Partial<Record<ServerField, string>>;

export const emptyServerDraft = (): ServerDraft => ({ name: "", url: "", headers: [] });

export const NAME_RULE = "1 to 32 lowercase letters, digits, - or _";

/** An HTTP header name (RFC 9110's token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

function nameProblem(name: string, taken: readonly string[]): string | undefined {
  if (!name) return "Give the server a name.";
  const problem = mcpServerNameProblem(name);
  if (problem) return `“${name}” cannot be a name: use ${NAME_RULE}, without spaces or capitals${name.includes("__") ? ", and no double underscore" : ""}.`;
  if (taken.includes(name)) return `You already have a server named ${name}.`;
  return undefined;
}

function urlProblem(url: string): string | undefined {
  if (!url) return "Enter the server's URL.";
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "That is not a full URL: it starts with https://.";
  }
  if (parsed.protocol === "https:") return undefined;
  if (parsed.protocol === "http:" && LOCAL_HOSTS.has(parsed.hostname)) return undefined;
  return "Use an https:// URL (http:// only for localhost).";
}

function headersOf(rows: readonly HeaderRow[]): { headers: Record<string, string> } | { problem: string } {
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  // Rows left empty are ignored: "+ Add a header" should not make a form that cannot be sent.
  const filled = rows.filter((r) => r.name.trim() || r.value);
  if (filled.length > MCP_MAX_HEADERS) return { problem: `At most ${MCP_MAX_HEADERS} headers.` };
  for (const [i, row] of filled.entries()) {
    const name = row.name.trim();
    if (!name) return { problem: `Header ${i + 1} has a value but no name.` };
    if (name.length > MCP_MAX_HEADER_NAME || row.value.length > MCP_MAX_HEADER_VALUE) return { problem: `The header ${name.slice(0, 40)} is too long.` };
    if (!HEADER_NAME.test(name)) return { problem: `“${name}” cannot be a header name: letters, digits and - only, no spaces or colons.` };
    if (seen.has(name.toLowerCase())) return { problem: `The header ${name} is given twice.` };
    if (/[\r\n]/.test(row.value)) return { problem: `The value of ${name} has a line break.` };
    seen.add(name.toLowerCase());
    headers[name] = row.value;
  }
  return { headers };
}

/** The body to POST, or each field's problem. `taken`: the names of the user's servers. */
export function serverBody(draft: ServerDraft, taken: readonly string[] = []): { body: McpServerBody } | { problems: ServerProblems } {
  const name = draft.name.trim();
  const url = draft.url.trim();
  const problems: ServerProblems = {};
  const nameIssue = nameProblem(name, taken);
  if (nameIssue) problems.name = nameIssue;
  const urlIssue = urlProblem(url);
  if (urlIssue) problems.url = urlIssue;
  const headers = headersOf(draft.headers);
  if ("problem" in headers) problems.headers = headers.problem;
  if (Object.keys(problems).length > 0 || "problem" in headers) return { problems };
  return { body: { name, url, ...(Object.keys(headers.headers).length ? { headers: headers.headers } : {}) } };
}
