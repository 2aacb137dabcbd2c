// API keys and the compatible endpoints (PROTOCOL.md, "API keys and compatible endpoints"): what the
// Worker, the web app's Settings page and the tests share.

/** A key as its owner lists it; its secret is shown once, at creation, and never again. */
export interface ApiKey {
  id: string;
  name: string;
  /** The secret's first characters (API_KEY_PREFIX_CHARS), to tell keys apart. */
  prefix: string;
  createdAt: number;
  /** null: never used. Kept to the minute (a key's every request does not write). */
  lastUsedAt: number | null;
}

/** Every key's secret begins so. */
export const API_KEY_SECRET_START = "eo_";
export const API_KEY_PREFIX_CHARS = 10;
export const MAX_API_KEY_NAME = 64;
/** Live keys one user may hold (POST /api/keys answers 429 past them). */
export const MAX_API_KEYS = 20;

/** The headers of the compatible endpoints: the thread a request continues, or the one that answered. */
export const THREAD_ID_HEADER = "X-Thread-Id";
export const PROJECT_ID_HEADER = "X-Project-Id";

/** The MCP server's tools (PROTOCOL.md). */
export const MCP_SERVER_TOOLS = ["search_threads", "list_threads", "read_thread", "ask", "list_projects"] as const;
/** How long `ask` waits for the run to end before it answers with what it has. */
export const MCP_ASK_WAIT_MS = 120_000;
/** A compatible endpoint's body: the whole conversation, every turn. */
export const V1_MAX_BODY_BYTES = 4 * 1024 * 1024;
