// UserRoom: one Durable Object per user, the single writer and primary store of what spans the user's
// threads: the directory, search, usage and the spend ledger, context and memory files, the attachment
// quota, tasks. Lifecycle:
//   constructor  the store (user/schema.ts) and its parts; the first call imports the user's rows from
//                D1 once (import.ts)
//   RPC          from the Worker's routes and from the user's threads, each for a user id it checks
//                against its own (an object answers for one user only)
//   onAlarm      (alarm) the D1 outbox's retries
// Threads report to it after each run (report.ts). Its own writes (context files, a thread deleted) go
// to D1 through its outbox. When the user's files change it tells the threads that ran recently, whose
// step 0 holds a copy.
import { DurableObject } from "cloudflare:workers";
import type { ContextFile, ContextFileInfo, Run, Schedule, SearchResult, Share, SharedThread, Task, TaskStatus, Thread, UsageTotals } from "../../protocol";
import { d1Sink } from "../db/mirror";
import { database } from "../db/client";
import type { TaskRow } from "../db/schema";
import { toTask, toThread } from "../db/shapes";
import { configOf, type Env } from "../env";
import { Alarms } from "../lib/alarms";
import { consoleLogger } from "../lib/logger";
import { Outbox } from "../lib/outbox";
import { OutboxFlush } from "../lib/outbox-flush";
import type { ContextQuota } from "../lib/context-quota";
import { ContextFiles } from "./context-files";
import { userDb, type UserDb } from "./db";
import { Directory, type ListOptions } from "./directory";
import { FirstTouch } from "./first-touch";
import { threadCalls, type ThreadCalls } from "./thread-calls";
import { importFromD1 } from "./import";
import { SpendLedger, type Reservation, type SpendState } from "./ledger";
import { applyReport, type ReportEntry } from "./report";
import { searchMessages } from "./search";
import { StoredFiles, type StoredFile } from "./stored-files";
import type { McpOffer, McpResult } from "../lib/mcp-offer";
import { McpBook, type McpOps } from "./mcp/book";
import { McpServers } from "./mcp/servers";
import { ProjectBook, type ProjectEffects, type ProjectOps } from "./project-book";
import { UserProjects } from "./projects";
import { UserSchedules } from "./schedules";
import { deleteSharedFiles, shareUrl } from "./share-ids";
import { UserShares, type Snapshot } from "./shares";
import { WaitingCalls } from "./waiting-calls";
import { UserTasks, type TaskBounds, type TaskRefusal } from "./tasks";
import { roundUsd } from "../lib/usd";
import { Usage, type UsageQuery } from "./usage";

export class UserRoom extends DurableObject<Env> {
  private readonly db: UserDb;
  private readonly ledger: SpendLedger;
  private readonly directory: Directory;
  private readonly usage: Usage;
  private readonly files: ContextFiles;
  private readonly stored: StoredFiles;
  private readonly taskList: UserTasks;
  private readonly scheduleList: UserSchedules;
  private readonly shareList: UserShares;
  private readonly projectBook: ProjectBook;
  private readonly mcpBook: McpBook;
  private readonly waiting: WaitingCalls;
  private readonly outbox: Outbox;
  private readonly mirror: OutboxFlush;
  private readonly alarms: Alarms;
  private readonly touch: FirstTouch;
  private readonly threadObjects: ThreadCalls;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = userDb(ctx.storage);
    this.ledger = new SpendLedger(ctx.storage.sql);
    this.directory = new Directory(this.db);
    this.usage = new Usage(this.db);
    this.outbox = new Outbox(ctx.storage.sql, "outbox");
    this.threadObjects = threadCalls(env, (p) => ctx.waitUntil(p));
    this.touch = new FirstTouch(ctx.storage.sql, async (userId) => {
      const { rows } = await importFromD1(env, this.db, userId);
      this.ledger.importToday();
      return rows;
    });
    this.files = new ContextFiles(this.db, this.outbox, () => this.touch.owner ?? "");
    this.stored = new StoredFiles(this.db);
    this.taskList = new UserTasks(this.db);
    this.scheduleList = new UserSchedules(ctx.storage.sql);
    this.shareList = new UserShares(ctx.storage.sql);
    this.waiting = new WaitingCalls(ctx.storage.sql);
    this.projectBook = new ProjectBook(new UserProjects(ctx.storage.sql), this.stored, this.directory, this.projectEffects());
    const config = configOf(env);
    this.mcpBook = new McpBook(new McpServers(ctx.storage.sql), { allowLocal: config.mcpAllowLocal, toolTimeoutMs: config.mcpToolTimeoutMs }, {
      changed: () => this.tellThreads(),
      waitUntil: (p) => ctx.waitUntil(p),
    });
    this.alarms = new Alarms(ctx.storage);
    this.mirror = new OutboxFlush(this.outbox, d1Sink(database(env).$client), this.alarms, consoleLogger("user"), "D1");
  }

  // --- The spend ledger ----------------------------------------------------------------------

  async spend(userId: string): Promise<SpendState> {
    await this.open(userId);
    return this.ledger.today();
  }

  async reserve(userId: string, run: { runId: string; threadId: string }, usd: number, capUsd: number): Promise<Reservation> {
    await this.open(userId);
    return this.ledger.reserve(run.runId, run.threadId, usd, capUsd);
  }

  async settle(userId: string, run: { runId: string; threadId: string; at: number }, usd: number): Promise<SpendState> {
    await this.open(userId);
    return this.ledger.settle(run.runId, run.threadId, usd, run.at);
  }

  // --- What the threads report, and what the routes read --------------------------------------

  async report(userId: string, entries: ReportEntry[]): Promise<void> {
    await this.open(userId);
    applyReport(this.db, { directory: this.directory, usage: this.usage, schedules: this.scheduleList, waiting: this.waiting }, userId, entries);
  }

  async threads(userId: string, opts: ListOptions): Promise<{ threads: Thread[]; nextCursor?: string }> {
    await this.open(userId);
    const page = this.directory.list(opts);
    return { threads: this.waiting.mark(page.rows.map(toThread)), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  /** The thread and its task threads below it, or null for a thread not in the directory. */
  async family(userId: string, threadId: string): Promise<string[] | null> {
    await this.open(userId);
    return this.directory.has(threadId) ? this.directory.family(threadId) : null;
  }

  /** Threads deleted (their objects emptied): out of the directory, search, the quota and D1; their shares revoked. */
  async forget(userId: string, threadIds: string[]): Promise<void> {
    await this.open(userId);
    await this.revoke(this.shareList.ofThreads(threadIds));
    this.ctx.storage.transactionSync(() => {
      this.directory.forget(threadIds);
      this.scheduleList.forgetThreads(threadIds);
      this.waiting.forget(threadIds);
      for (const id of threadIds) this.outbox.remove("threads", id, { id });
    });
    this.ctx.waitUntil(this.mirror.flush());
  }

  async search(userId: string, q: string, limit: number, projectId?: string): Promise<SearchResult[]> {
    await this.open(userId);
    return searchMessages(this.db, q, limit, projectId);
  }

  async metrics(userId: string, q: UsageQuery): Promise<{ runs: Run[]; totals: UsageTotals; spentTodayUsd: number }> {
    await this.open(userId);
    return { ...this.usage.runs(q), spentTodayUsd: roundUsd(this.ledger.today().spentUsd) };
  }

  // --- Context and memory files ----------------------------------------------------------------

  async contextFiles(userId: string): Promise<ContextFileInfo[]> {
    await this.open(userId);
    return this.files.list();
  }

  /** Every file with its content: a thread's step 0. */
  async contextForRun(userId: string): Promise<ContextFile[]> {
    await this.open(userId);
    return this.files.all();
  }

  async contextFile(userId: string, path: string): Promise<ContextFile | null> {
    await this.open(userId);
    return this.files.get(path);
  }

  async contextFilesUnder(userId: string, prefix: string): Promise<{ path: string; bytes: number }[]> {
    await this.open(userId);
    return this.files.under(prefix);
  }

  /** Writes a file within the user's quota (the caller's configuration); null if it would pass it (nothing written). */
  async putContextFile(userId: string, path: string, content: string, quota: ContextQuota): Promise<ContextFile | null> {
    await this.open(userId);
    const file = this.files.put(path, content, quota);
    if (file) this.changed();
    return file;
  }

  /** Removes files; the paths that were there. */
  async deleteContextFiles(userId: string, paths: string[]): Promise<string[]> {
    await this.open(userId);
    const gone = this.files.remove(paths);
    if (gone.length) this.changed();
    return gone;
  }

  // --- Attachments' quota ----------------------------------------------------------------------

  /** Keeps a file's record if the user's files stay within `quotaBytes` with it (the caller's configuration). */
  async chargeFile(userId: string, file: StoredFile, quotaBytes: number): Promise<boolean> {
    await this.open(userId);
    return this.stored.charge(file, quotaBytes);
  }

  async releaseFile(userId: string, id: string): Promise<void> {
    await this.open(userId);
    this.stored.release(id);
  }

  // --- Tasks -----------------------------------------------------------------------------------

  async createTask(userId: string, row: TaskRow, bounds: TaskBounds): Promise<{ ok: true } | { ok: false; bound: TaskRefusal }> {
    await this.open(userId);
    return this.taskList.create(row, bounds);
  }

  async task(userId: string, id: string): Promise<TaskRow | null> {
    await this.open(userId);
    return this.taskList.get(id);
  }

  async taskOfThread(userId: string, threadId: string): Promise<TaskRow | null> {
    await this.open(userId);
    return this.taskList.ofThread(threadId);
  }

  async updateTask(userId: string, id: string, patch: Partial<TaskRow>): Promise<TaskRow | null> {
    await this.open(userId);
    return this.taskList.update(id, patch);
  }

  async tasks(userId: string, q: { threadId?: string; status?: TaskStatus }): Promise<Task[]> {
    await this.open(userId);
    return this.taskList.list(q).map(toTask);
  }

  // --- Schedules (their times and fires are their threads') ----------------------------------

  /** Counts a new schedule against the user's maximum, in one step; false past it. */
  async countSchedule(userId: string, schedule: { id: string; threadId: string }, max: number): Promise<boolean> {
    await this.open(userId);
    return this.scheduleList.count(schedule.id, schedule.threadId, max);
  }

  async schedules(userId: string): Promise<Schedule[]> {
    await this.open(userId);
    return this.scheduleList.list();
  }

  /** The thread a schedule belongs to (its routes go there), or null. */
  async scheduleThread(userId: string, id: string): Promise<string | null> {
    await this.open(userId);
    return this.scheduleList.threadOf(id);
  }

  // --- Projects ----------------------------------------------------------------------------------

  /** A projects operation (user/project-book.ts names each, with its arguments and answer). */
  async projects<K extends keyof ProjectOps>(userId: string, op: K, args: ProjectOps[K][0]): Promise<ProjectOps[K][1]> {
    await this.open(userId);
    return this.projectBook.run(op, args);
  }

  // --- MCP servers -------------------------------------------------------------------------------

  /** An MCP operation (user/mcp/book.ts names each, with its arguments and answer). */
  async mcp<K extends keyof McpOps>(userId: string, op: K, args: McpOps[K][0]): Promise<McpOps[K][1]> {
    await this.open(userId);
    return this.mcpBook.run(op, args);
  }

  /** A thread's step 0: the enabled servers' tools. */
  async mcpForRun(userId: string): Promise<McpOffer[]> {
    await this.open(userId);
    return this.mcpBook.forRun();
  }

  /** A thread's run calls a tool (its approval, if it asked, was given there). */
  async mcpCall(userId: string, call: { serverId: string; tool: string; input: unknown }): Promise<McpResult> {
    await this.open(userId);
    return this.mcpBook.call(call);
  }

  // --- Share links -------------------------------------------------------------------------------

  async addShare(userId: string, share: { id: string; threadId: string; createdAt: number }, snapshot: Snapshot, files: string[]): Promise<void> {
    await this.open(userId);
    this.shareList.add(share.id, share.threadId, snapshot, files, share.createdAt);
  }

  async shares(userId: string, origin: string): Promise<Share[]> {
    await this.open(userId);
    return this.shareList.list((id) => shareUrl(origin, id));
  }

  /** Revokes a share of the user's: its link is 404 from now on, its files gone. False: no such share. */
  async deleteShare(userId: string, id: string): Promise<boolean> {
    await this.open(userId);
    return (await this.revoke([id])).length > 0;
  }

  /** A share as anyone with its link reads it (no user is named: the link is the credential). */
  async sharedThread(id: string): Promise<SharedThread | null> {
    return this.shareList.read(id);
  }

  async sharedFile(id: string, fileId: string): Promise<boolean> {
    return this.shareList.hasFile(id, fileId);
  }

  private async revoke(ids: string[]): Promise<string[]> {
    const gone = this.shareList.remove(ids);
    for (const id of gone) await deleteSharedFiles(this.env.FILES, id);
    return gone;
  }

  async alarm(): Promise<void> {
    this.alarms.cleared();
    await this.mirror.onAlarm();
  }

  /** What a project change does outside this object: its threads told, its bytes deleted or read. */
  private projectEffects(): ProjectEffects {
    return {
      invalidate: (ids) => this.threadObjects.invalidate(ids),
      leave: (ids, projectId) => this.threadObjects.leaveProject(ids, projectId),
      deleteBytes: (keys) => this.ctx.waitUntil(keys.length ? this.env.FILES.delete(keys) : Promise.resolve()),
      readText: async (key) => (await this.env.FILES.get(key))?.text() ?? null,
    };
  }

  /**
   * The user's files changed: to D1 after this, and the threads that ran within step 0's longest
   * cache age drop their copy (older ones read again anyway).
   */
  private changed(): void {
    this.ctx.waitUntil(this.mirror.flush());
    this.tellThreads();
  }

  /** The threads that ran within step 0's longest cache age drop their copy (older ones read again anyway). */
  private tellThreads(): void {
    this.threadObjects.invalidate(this.directory.activeSince(Date.now() - configOf(this.env).step0MaxAgeMs));
  }

  private open(userId: string): Promise<void> {
    return this.touch.open(userId);
  }
}
