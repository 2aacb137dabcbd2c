// The user's MCP servers at work: what the routes and the threads ask of them. The user's object is the
// only MCP client of its user: it holds the connections (closed when idle, so the object can
// hibernate), the secrets, and the tool lists the threads are given; a thread's tool call comes back
// here to be made.
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { MCP_APPROVALS, MCP_MAX_SERVERS_PER_USER, type ApiErrorCode, type McpApproval, type McpServer, type McpServerBody, type McpServerPatch } from "../../../protocol";
import type { McpCallAnswer, McpOffer, McpResult } from "../../lib/mcp-offer";
import { guardedFetch, refusal } from "./address";
import { callTool, connect, isTimeout, listTools, NeedsSignIn, reason, type Connection, type Reach } from "./client";
import { asks, McpServers, publicServer, type ServerRow } from "./servers";
import { parseSignInState, sameState } from "./sign-in-state";
import { StoredAuth } from "./stored-auth";

/** A thread's run's call of a tool. */
export interface McpCall {
  serverId: string;
  tool: string;
  input: unknown;
  /** The user approved this very call in the thread. */
  approved: boolean;
}

/** An answer a route turns into its error shape when it is not `ok`. */
export type McpAnswer<T> = { ok: true; value: T } | { ok: false; code: ApiErrorCode; message: string };

export interface McpEffects {
  /** The tools the threads are given changed: their step 0 reads them again. */
  changed(): void;
  waitUntil(work: Promise<unknown>): void;
}

/** Tool lists older than this are read again when a run's step 0 asks for them (in the background). */
const TOOLS_MAX_AGE_MS = 60 * 60_000;
/** The shortest time between two lists of one server's tools on its word that they changed. */
const RELIST_GAP_MS = 1_000;
/** A connection nobody used for this long is closed. */
const IDLE_MS = 60_000;

const fail = (code: ApiErrorCode, message: string): McpAnswer<never> => ({ ok: false, code, message });

export class McpHub {
  private readonly servers: McpServers;
  private readonly open = new Map<string, { conn: Promise<Connection>; idle?: ReturnType<typeof setTimeout> }>();
  /** Servers whose list is being read again (relistSoon), and whether another read waits. */
  private readonly relisting = new Map<string, { again: boolean }>();

  constructor(
    sql: SqlStorage,
    private readonly reach: Reach,
    private readonly effects: McpEffects,
    /** The user's object's id: every sign-in's state starts with it (sign-in-state.ts). */
    private readonly holder: string,
  ) {
    this.servers = new McpServers(sql);
  }

  list(): McpServer[] {
    return this.servers.list().map(publicServer);
  }

  /** Lists the new server's tools before it is kept; one that needs sign-in is kept, waiting for it. */
  async add(body: McpServerBody, origin: string): Promise<McpAnswer<McpServer>> {
    const why = refusal(body.url, this.reach.allowLocal);
    if (why) return fail("invalid_request", `This URL cannot be used: ${why}`);
    if (this.servers.byName(body.name)) return fail("conflict", `You already have a server named ${body.name}`);
    if (this.servers.count() >= MCP_MAX_SERVERS_PER_USER) return fail("rate_limited", `You already have ${MCP_MAX_SERVERS_PER_USER} MCP servers; remove one first`);
    const now = Date.now();
    const row: ServerRow = {
      id: McpServers.newId(now), name: body.name, url: body.url, enabled: true, status: "connected", authUrl: null, error: null,
      tools: [], approval: {}, toolsAt: 0, createdAt: now,
      secrets: { headers: body.headers ?? {}, oauth: { redirectUrl: `${origin}/api/mcp/callback` } },
    };
    const result = await this.refresh(row, false);
    if (result === "unreachable") return fail("upstream_error", `The server could not be used: ${row.error}`);
    this.effects.changed();
    return { ok: true, value: publicServer(row) };
  }

  async update(id: string, patch: McpServerPatch): Promise<McpAnswer<McpServer>> {
    const row = this.servers.get(id);
    if (!row) return fail("not_found", "No such server");
    for (const [tool, setting] of Object.entries(patch.approval ?? {})) {
      if (!row.tools.some((t) => t.name === tool)) return fail("invalid_request", `The server has no tool named ${tool}`);
      if (!MCP_APPROVALS.includes(setting)) return fail("invalid_request", `approval must be one of ${MCP_APPROVALS.join(", ")}`);
      row.approval[tool] = setting as McpApproval;
    }
    if (patch.enabled !== undefined) row.enabled = patch.enabled;
    if (patch.headers) {
      row.secrets.headers = patch.headers;
      this.drop(id);
      if (row.enabled) await this.refresh(row, true);
    }
    this.servers.put(row);
    this.effects.changed();
    return { ok: true, value: publicServer(row) };
  }

  remove(id: string): boolean {
    this.drop(id);
    const gone = this.servers.remove(id);
    if (gone) this.effects.changed();
    return gone;
  }

  /**
   * The end of a sign-in, from the OAuth redirect's query: the code for tokens (PKCE), then the tool
   * list. The server it signed in, or why it did not. The state is its only authority (the browser's
   * redirect carries no credential): it must be the one the server's row keeps, and it is good once.
   */
  async callback(state: string, code?: string, error?: string): Promise<McpAnswer<{ serverId: string }>> {
    const named = parseSignInState(state);
    const row = named?.holder === this.holder ? this.servers.get(named.serverId) : null;
    const kept = row?.secrets.oauth;
    if (!row || !kept?.state || !sameState(kept.state, state)) return fail("not_found", "This sign-in is not one under way");
    const expired = !(Date.now() < (kept.stateExpiresAt ?? 0));
    delete kept.state;
    delete kept.stateExpiresAt;
    if (expired) {
      // A new address to sign in at, so the user can try again from Connections.
      await this.refresh(row, true);
      return fail("invalid_request", "This sign-in expired: sign in again");
    }
    if (error || !code) {
      row.status = "failed";
      row.error = `Sign-in refused: ${(error ?? "no code").slice(0, 200)}`;
      this.servers.put(row);
      return fail("invalid_request", row.error);
    }
    try {
      const provider = this.provider(row, () => {});
      await auth(provider, { serverUrl: row.url, authorizationCode: code, fetchFn: guardedFetch(this.reach.allowLocal, 15_000) });
    } catch (err) {
      row.status = "failed";
      row.error = `Sign-in failed: ${reason(err)}`;
      this.servers.put(row);
      return fail("upstream_error", row.error);
    }
    delete row.secrets.oauth!.codeVerifier;
    await this.refresh(row, true);
    this.effects.changed();
    return row.status === "connected" ? { ok: true, value: { serverId: row.id } } : fail("upstream_error", row.error ?? "The server could not be used");
  }

  /** Lists again, in the background, the tools of servers listed longer ago than TOOLS_MAX_AGE_MS. */
  refreshStale(): void {
    for (const row of this.servers.list()) {
      if (row.enabled && row.status === "connected" && Date.now() - row.toolsAt > TOOLS_MAX_AGE_MS) this.relistSoon(row.id);
    }
  }

  /** What the threads' runs are given: the enabled, connected servers' tools. */
  forRun(): McpOffer[] {
    const rows = this.servers.list().filter((r) => r.enabled && r.status === "connected");
    return rows.map((row) => ({
      serverId: row.id,
      server: row.name,
      tools: row.tools.map((t) => ({
        name: `${row.name}__${t.name}`,
        tool: t.originalName ?? t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        asks: asks(t, row.approval[t.name]),
      })),
    }));
  }

  /** A thread's call of a tool: its result, or an error result saying why it could not be made. */
  async call({ serverId, tool, input, approved }: McpCall): Promise<McpCallAnswer> {
    const row = this.servers.get(serverId);
    const refused = (content: string): McpResult => ({ content, images: [], isError: true });
    if (!row) return refused("This MCP server was removed");
    if (!row.enabled) return refused(`The MCP server ${row.name} is turned off`);
    if (row.status !== "connected") return refused(`The MCP server ${row.name} needs attention: ${row.error ?? row.status}`);
    const listed = row.tools.find((t) => (t.originalName ?? t.name) === tool);
    if (!approved && listed && asks(listed, row.approval[listed.name])) return { asksFirst: true };
    try {
      const conn = await this.connection(row);
      return await callTool(conn.client, tool, input, this.reach.toolTimeoutMs);
    } catch (err) {
      // A connection that failed a call is not trusted with the next one.
      this.drop(serverId);
      return refused(isTimeout(err) ? `The MCP server ${row.name} did not answer within ${this.reach.toolTimeoutMs / 1000} s` : `The MCP server ${row.name} could not be reached: ${reason(err)}`);
    }
  }

  /**
   * Connects and reads the tool list into `row`: "unreachable" when the server cannot be used (kept
   * as failed when `keep`), "sign-in" when it asks for OAuth first.
   */
  private async refresh(row: ServerRow, keep: boolean): Promise<"connected" | "sign-in" | "unreachable"> {
    try {
      const conn = await this.connection(row);
      row.tools = await listTools(conn.client, 62 - row.name.length);
      Object.assign(row, { status: "connected", authUrl: null, error: null, toolsAt: Date.now() });
      this.servers.put(row);
      return "connected";
    } catch (err) {
      this.drop(row.id);
      if (err instanceof NeedsSignIn) {
        Object.assign(row, { status: "authenticating", authUrl: err.authUrl, error: null });
        this.servers.put(row);
        return "sign-in";
      }
      Object.assign(row, { status: "failed", error: reason(err) });
      if (keep) this.servers.put(row);
      return "unreachable";
    }
  }

  /**
   * Lists a server's tools again, one list at a time and at most one more waiting, started RELIST_GAP_MS
   * after the last, however often the server says its list changed (a notification each is free to send).
   */
  private relistSoon(id: string): void {
    const under = this.relisting.get(id);
    if (under) {
      under.again = true;
      return;
    }
    const state = { again: false };
    this.relisting.set(id, state);
    const run = async () => {
      try {
        for (;;) {
          const started = Date.now();
          state.again = false;
          await this.relist(id);
          if (!state.again) break;
          await new Promise((r) => setTimeout(r, Math.max(0, started + RELIST_GAP_MS - Date.now())));
        }
      } finally {
        this.relisting.delete(id);
      }
    };
    this.effects.waitUntil(run());
  }

  /** A server's list again (it said it changed, or it aged); the threads are told when it did change. */
  private async relist(id: string): Promise<void> {
    const row = this.servers.get(id);
    if (!row || !row.enabled) return;
    const before = JSON.stringify(row.tools);
    await this.refresh(row, true);
    if (JSON.stringify(row.tools) !== before || row.status !== "connected") this.effects.changed();
  }

  /** The server's open connection, or a new one; closed after IDLE_MS unused. */
  private connection(row: ServerRow): Promise<Connection> {
    let entry = this.open.get(row.id);
    if (!entry) {
      const provider = this.provider(row, () => {
        // The SDK refreshed or registered: keep it with the row as stored now (other fields may have moved).
        const stored = this.servers.get(row.id);
        if (stored) this.servers.put({ ...stored, secrets: { ...stored.secrets, oauth: row.secrets.oauth } });
      });
      const conn = connect(row.url, row.secrets.headers, provider, this.reach, () => this.relistSoon(row.id));
      entry = { conn };
      this.open.set(row.id, entry);
      conn.catch(() => this.open.delete(row.id));
    }
    if (entry.idle) clearTimeout(entry.idle);
    const current = entry;
    current.idle = setTimeout(() => {
      if (this.open.get(row.id) === current) this.drop(row.id);
    }, IDLE_MS);
    return current.conn;
  }

  private drop(id: string): void {
    const entry = this.open.get(id);
    if (!entry) return;
    this.open.delete(id);
    if (entry.idle) clearTimeout(entry.idle);
    this.effects.waitUntil(entry.conn.then((c) => c.close(), () => {}));
  }

  private provider(row: ServerRow, save: () => void): StoredAuth {
    row.secrets.oauth ??= { redirectUrl: "" };
    return new StoredAuth(row.secrets.oauth, this.holder, row.id, save);
  }
}
