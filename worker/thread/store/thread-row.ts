import type { PendingApproval, Thread, ThreadKind, ThreadStatus } from "../../../protocol";
import type { NewThread } from "../../plugins/contract";

/** The thread as its object keeps it: the public shape plus what stays inside (owner, source). */
export interface ThreadRecord extends Thread {
  ownerId: string;
  source: string;
  /** True once a person named the thread: automatic titles never overwrite it. */
  named: boolean;
  /**
   * The code execution container its last run used (reused by the next run of the same branch), when
   * it expires, and the input message of the run that used it.
   */
  container?: { id: string; expiresAt: number; exchange?: string } | null;
  updatedAt: number;
}

export type ThreadPatch = Partial<
  Pick<ThreadRecord, "name" | "model" | "status" | "instructions" | "sessionId" | "headId" | "lastActivity" | "named" | "timezone" | "projectId" | "mcpOff" | "codeExecution" | "container">
>;

type Row = {
  id: string;
  owner_id: string;
  source: string;
  name: string;
  kind: string;
  status: string;
  model: string;
  session_id: string | null;
  parent_thread_id: string | null;
  instructions: string;
  head_id: string | null;
  named: number;
  timezone: string | null;
  project_id: string | null;
  mcp_off: string | null;
  code_execution: number | null;
  container: string | null;
  last_activity: number;
  created_at: number;
  updated_at: number;
};

const COLUMNS: Record<keyof ThreadPatch, keyof Row> = {
  name: "name",
  model: "model",
  status: "status",
  instructions: "instructions",
  sessionId: "session_id",
  headId: "head_id",
  lastActivity: "last_activity",
  named: "named",
  timezone: "timezone",
  projectId: "project_id",
  mcpOff: "mcp_off",
  codeExecution: "code_execution",
  container: "container",
};

/** A patch's value as its column holds it. */
function columnValue(k: keyof ThreadPatch, patch: ThreadPatch): SqlStorageValue {
  const v = patch[k];
  if (k === "named" || k === "codeExecution") return v ? 1 : 0;
  if (k === "mcpOff" || k === "container") return v === null ? null : JSON.stringify(v);
  return v as SqlStorageValue;
}

/** The one thread row, read once and kept in memory: every request and run reads it. */
export class ThreadRow {
  private cached: ThreadRecord | null | undefined;

  constructor(
    private readonly sql: SqlStorage,
    /** The calls waiting for the user's approval (approvals.ts): the thread shows them. */
    private readonly pending: () => PendingApproval[],
  ) {}

  get(): ThreadRecord | null {
    if (this.cached === undefined) {
      const row = this.sql.exec<Row>("SELECT * FROM thread LIMIT 1").toArray()[0];
      this.cached = row ? { ...fromRow(row), pendingApprovals: this.pending() } : null;
    }
    return this.cached;
  }

  create(t: ThreadRecord): void {
    this.sql.exec(
      `INSERT INTO thread (id, owner_id, source, name, kind, status, model, session_id, parent_thread_id, instructions,
        head_id, named, timezone, project_id, last_activity, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      t.id, t.ownerId, t.source, t.name, t.kind, t.status, t.model, t.sessionId, t.parentThreadId, t.instructions,
      t.headId, t.named ? 1 : 0, t.timezone ?? null, t.projectId ?? null, t.lastActivity, t.createdAt, t.updatedAt,
    );
    this.cached = { ...t };
  }

  /** Applies a patch and answers the thread as now stored. */
  update(patch: ThreadPatch, now: number): ThreadRecord {
    const current = this.get();
    if (!current) throw new Error("no thread row");
    const keys = (Object.keys(patch) as (keyof ThreadPatch)[]).filter((k) => patch[k] !== undefined);
    const sets = [...keys.map((k) => `${COLUMNS[k]} = ?`), "updated_at = ?"].join(", ");
    const values = keys.map((k) => columnValue(k, patch));
    this.sql.exec(`UPDATE thread SET ${sets}`, ...values, now);
    this.cached = { ...current, ...Object.fromEntries(keys.map((k) => [k, patch[k]])), updatedAt: now };
    return this.cached;
  }

  /** The calls waiting for the user's approval changed: the thread shows them. */
  pendingChanged(): void {
    const t = this.get();
    if (t) this.cached = { ...t, pendingApprovals: this.pending() };
  }

  forget(): void {
    this.cached = undefined;
  }
}

function fromRow(r: Row): ThreadRecord {
  return {
    id: r.id,
    ownerId: r.owner_id,
    source: r.source,
    name: r.name,
    kind: r.kind as ThreadKind,
    status: r.status as ThreadStatus,
    model: r.model,
    sessionId: r.session_id,
    parentThreadId: r.parent_thread_id,
    instructions: r.instructions,
    headId: r.head_id,
    named: r.named === 1,
    ...(r.timezone ? { timezone: r.timezone } : {}),
    projectId: r.project_id,
    ...(r.mcp_off ? { mcpOff: JSON.parse(r.mcp_off) as string[] } : {}),
    ...(r.code_execution !== null && r.code_execution !== undefined ? { codeExecution: r.code_execution === 1 } : {}),
    container: r.container ? (JSON.parse(r.container) as NonNullable<ThreadRecord["container"]>) : null,
    lastActivity: r.last_activity,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** What leaves the object: PROTOCOL.md's Thread, nothing else (the owner stays inside). */
export function publicThread(t: ThreadRecord): Thread {
  return {
    id: t.id,
    name: t.name,
    kind: t.kind,
    status: t.status,
    model: t.model,
    sessionId: t.sessionId,
    parentThreadId: t.parentThreadId,
    instructions: t.instructions,
    headId: t.headId,
    lastActivity: t.lastActivity,
    createdAt: t.createdAt,
    ...(t.timezone ? { timezone: t.timezone } : {}),
    projectId: t.projectId ?? null,
    ...(t.mcpOff?.length ? { mcpOff: t.mcpOff } : {}),
    ...(t.codeExecution === false ? { codeExecution: false } : {}),
    ...(t.pendingApprovals?.length ? { pendingApprovals: t.pendingApprovals } : {}),
  };
}

/** What a person may change of a thread. */
export type ThreadEdits = Partial<Pick<Thread, "name" | "model" | "status" | "instructions" | "timezone" | "projectId" | "mcpOff" | "codeExecution">>;

/** What a new thread is made of, besides its id and owner. */
export type ThreadInit = Partial<Pick<NewThread, "parentThreadId" | "source">> & Pick<NewThread, "name" | "kind" | "model"> & { named?: boolean; timezone?: string; projectId?: string };

export function newThreadRecord(id: string, ownerId: string, init: ThreadInit, now: number): ThreadRecord {
  return {
    id,
    ownerId,
    source: init.source ?? "web",
    name: init.name,
    kind: init.kind,
    status: "open",
    model: init.model,
    sessionId: null,
    parentThreadId: init.parentThreadId ?? null,
    instructions: "",
    headId: null,
    named: init.named ?? true,
    ...(init.timezone ? { timezone: init.timezone } : {}),
    projectId: init.projectId ?? null,
    lastActivity: now,
    createdAt: now,
    updatedAt: now,
  };
}
