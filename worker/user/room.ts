// UserRoom: one Durable Object per user, the single writer and primary store of what spans the user's
// threads. It composes the subsystems (parts.ts), each in its own folder with its own tables, and does
// nothing else: each RPC method hands its call to one of them. Lifecycle:
//   constructor  the subsystems; then the object opens for its user before it answers anything (the
//                user is the object's name; their rows come from D1 the first time: store/first-touch.ts)
//   RPC          from the Worker's routes and from the user's threads; no method names a user
//   alarm        the D1 outbox's flush (the usage roll-ups, a minute after a change) and its retries
import { DurableObject } from "cloudflare:workers";
import type { McpServerBody, McpServerPatch, TaskStatus } from "../../protocol";
import type { TaskRow } from "../db/schema";
import { configOf, type Env } from "../env";
import type { ContextQuota } from "../lib/context-quota";
import { since } from "../lib/meter";
import type { ListOptions } from "./directory";
import type { StoredFile } from "./files";
import type { McpCall } from "./mcp";
import { userParts, type UserParts } from "./parts";
import type { FileBounds, StoredProjectFile } from "./projects";
import type { Passage } from "./knowledge";
import { applyReport, type ReportEntry } from "./report";
import type { ShareBounds } from "./shares";
import { USAGE_DAYS_FLUSH_MS, type LedgerRun, type UsageQuery } from "./spend";
import type { TaskBounds } from "./tasks";

export class UserRoom extends DurableObject<Env> {
  /** Its subsystems (parts.ts); only tests reach them from outside, in the object. */
  readonly parts: UserParts;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.parts = userParts(ctx, env);
    ctx.blockConcurrencyWhile(() => this.parts.open());
  }

  // --- Directory and search ------------------------------------------------------------------

  /**
   * What a thread's object reports (report.ts), in one transaction; the days whose usage changed go to
   * D1 within USAGE_DAYS_FLUSH_MS, all the user's threads' runs meanwhile in one write. Answers the rows
   * it took here, for the thread's count.
   */
  async report(entries: ReportEntry[]) {
    const { store, owner, meter, spend, outbox, mirror } = this.parts;
    const before = meter.read();
    const days = store.transaction(() => {
      const changed = new Set(entries.map((e) => applyReport(this.parts, owner.owner, e)).filter((d) => d !== null));
      for (const day of changed) outbox.put("usage_days", String(day), spend.day(owner.owner, day));
      return changed.size;
    });
    if (days) await mirror.soon(USAGE_DAYS_FLUSH_MS);
    return since(meter.read(), before);
  }

  threads(opts: ListOptions) {
    return this.parts.directory.list(opts);
  }

  /** The thread and its task threads below it, or null for a thread not in the directory. */
  family(threadId: string) {
    return this.parts.directory.family(threadId);
  }

  /**
   * Threads deleted (their objects emptied): out of the directory, search, the quota and D1; their
   * shares revoked. Answers the Files API ids of their files' uploads, for the caller to delete there.
   */
  async forget(threadIds: string[]): Promise<string[]> {
    const { shares, store, directory, stored, upstream, tasks, schedules, conversations, outbox, mirror } = this.parts;
    const { legacyImport } = configOf(this.env);
    await shares.forgetThreads(threadIds);
    let uploads: string[] = [];
    store.transaction(() => {
      directory.forget(threadIds);
      uploads = upstream.deleted(stored.ofThreads(threadIds));
      stored.forgetThreads(threadIds);
      tasks.forgetThreads(threadIds);
      schedules.forgetThreads(threadIds);
      conversations.forgetThreads(threadIds);
      for (const id of threadIds) outbox.remove("thread_directory", id, { id });
      // A thread from before the objects: its old rows go too (its messages with it, by the foreign key).
      if (legacyImport) for (const id of threadIds) outbox.remove("threads", id, { id });
    });
    this.ctx.waitUntil(mirror.flush());
    return uploads;
  }

  search(q: string, limit: number, projectId?: string) {
    return this.parts.directory.search(q, limit, projectId);
  }

  // --- Spend and usage -------------------------------------------------------------------------

  spend() {
    return this.parts.spend.today();
  }

  reserve(run: LedgerRun, usd: number, capUsd: number) {
    return this.parts.spend.reserve(run, usd, capUsd);
  }

  settle(run: LedgerRun & { at: number }, usd: number) {
    return this.parts.spend.settle(run, usd);
  }

  metrics(q: UsageQuery) {
    return this.parts.spend.metrics(q);
  }

  // --- Files: context and memory files, attachments' quota ---------------------------------------

  contextFiles() {
    return this.parts.context.list();
  }

  /** Every file with its content. */
  contextForRun() {
    return this.parts.context.all();
  }

  /** A thread's step 0: what its run is given, unless it holds the current version of it (run-inputs.ts). */
  inputsForRun(projectId: string | null, known: string | null) {
    return this.parts.runInputs.forRun(projectId, known);
  }

  contextFile(path: string) {
    return this.parts.context.get(path);
  }

  contextFilesUnder(prefix: string) {
    return this.parts.context.under(prefix);
  }

  /** Writes a file within the user's quota (the caller's configuration); null if it would pass it (nothing written). */
  putContextFile(path: string, content: string, quota: ContextQuota) {
    const file = this.parts.context.put(path, content, quota);
    if (file) this.parts.filesChanged();
    return file;
  }

  /** Removes files; the paths that were there. */
  deleteContextFiles(paths: string[]) {
    const gone = this.parts.context.remove(paths);
    if (gone.length) this.parts.filesChanged();
    return gone;
  }

  /** Keeps a file's record if the user's files stay within `quotaBytes` with it (the caller's configuration). */
  chargeFile(file: StoredFile, quotaBytes: number) {
    return this.parts.stored.charge(file, quotaBytes);
  }

  releaseFile(id: string) {
    this.parts.stored.release(id);
  }

  /** The Files API ids of those of the user's files a run already put in the code's container. */
  upstreamFiles(fileIds: string[]) {
    return this.parts.upstream.of(fileIds.slice(0, 1_000));
  }

  rememberUpstream(fileId: string, upstreamId: string) {
    this.parts.upstream.remember(fileId, upstreamId);
  }

  forgetUpstream(fileId: string) {
    this.parts.upstream.forget(fileId);
  }

  // --- Tasks -----------------------------------------------------------------------------------

  createTask(row: TaskRow, bounds: TaskBounds) {
    return this.parts.tasks.create(row, bounds);
  }

  task(id: string) {
    return this.parts.tasks.get(id);
  }

  taskOfThread(threadId: string) {
    return this.parts.tasks.ofThread(threadId);
  }

  updateTask(id: string, patch: Partial<TaskRow>) {
    return this.parts.tasks.update(id, patch);
  }

  tasks(q: { threadId?: string; status?: TaskStatus }) {
    return this.parts.tasks.list(q);
  }

  // --- Schedules (their times and fires are their threads') ----------------------------------

  /** Counts a new schedule against the user's maximum, in one step; false past it. */
  countSchedule(schedule: { id: string; threadId: string }, max: number) {
    return this.parts.schedules.count(schedule.id, schedule.threadId, max);
  }

  schedules() {
    return this.parts.schedules.list();
  }

  /** Counts a schedule's fire against the user's daily bound on unattended runs, in one step; false past it. */
  countFire(fire: { id: string; threadId: string }, perDay: number) {
    return this.parts.schedules.countFire(fire.id, fire.threadId, perDay);
  }

  /** The thread a schedule belongs to (its routes go there), or null. */
  scheduleThread(id: string) {
    return this.parts.schedules.threadOf(id);
  }

  // --- Projects ----------------------------------------------------------------------------------

  createProject(name: string, instructions: string) {
    return this.parts.projects.create(name, instructions);
  }

  projects() {
    return this.parts.projects.list();
  }

  project(id: string) {
    return this.parts.projects.get(id);
  }

  updateProject(id: string, edits: { name?: string; instructions?: string }) {
    return this.parts.projects.update(id, edits);
  }

  /** null: no such project; else the Files API ids of its files' uploads, for the caller to delete there. */
  deleteProject(id: string): string[] | null {
    const uploads = Object.values(this.parts.upstream.of(this.parts.projects.files(id)?.map((f) => f.id) ?? []));
    return this.parts.projects.delete(id) ? uploads : null;
  }

  /** null: no such project; else "kept", or the bound it would pass ("quota", "files"; nothing kept). */
  addProjectFile(file: StoredProjectFile, bounds: FileBounds) {
    return this.parts.projects.addFile(file, bounds);
  }

  projectFiles(id: string) {
    return this.parts.projects.files(id);
  }

  /** null: no such file; else the Files API ids of its upload, for the caller to delete there. */
  deleteProjectFile(id: string, fileId: string): string[] | null {
    const uploads = Object.values(this.parts.upstream.of([fileId]));
    return this.parts.projects.deleteFile(id, fileId) ? uploads : null;
  }

  /** A project file with its knowledge, and where its bytes are (the route extracts its text). */
  projectFile(id: string, fileId: string) {
    return this.parts.projects.file(id, fileId);
  }

  reprocessProjectFile(id: string, fileId: string) {
    return this.parts.projects.reprocess(id, fileId);
  }

  /** The sections the route extracted from a project file: cut into passages and indexed. */
  indexProjectFile(id: string, fileId: string, sections: Passage[], pages: number | null, maxProjectChars: number) {
    return this.parts.projects.indexed(id, fileId, sections, pages, maxProjectChars);
  }

  projectFileFailed(id: string, fileId: string, error: string) {
    return this.parts.projects.failed(id, fileId, error);
  }

  /** What retrieval gives for `question` in the project; null: no such project. */
  searchProject(id: string, question: string, limit: number) {
    return this.parts.projects.search(id, question, limit);
  }

  /** The project as a thread's step 0 reads it. */

  // --- MCP servers -------------------------------------------------------------------------------

  addMcpServer(body: McpServerBody, origin: string) {
    return this.parts.mcp.add(body, origin);
  }

  mcpServers() {
    return this.parts.mcp.list();
  }

  updateMcpServer(id: string, patch: McpServerPatch) {
    return this.parts.mcp.update(id, patch);
  }

  removeMcpServer(id: string) {
    return this.parts.mcp.remove(id);
  }

  /** The end of an OAuth sign-in (the redirect's query). */
  mcpCallback(state: string, code?: string, error?: string) {
    return this.parts.mcp.callback(state, code, error);
  }

  /** A thread's step 0: the enabled servers' tools. */

  /** A thread's run calls a tool (its approval, if it asked, was given there). */
  mcpCall(call: McpCall) {
    return this.parts.mcp.call(call);
  }

  // --- Share links -------------------------------------------------------------------------------

  /** Lists a share of `bytes` if the bounds (the caller's configuration) allow it; null: listed, else why not. */
  reserveShare(share: { id: string; threadId: string; createdAt: number }, bytes: number, bounds: ShareBounds) {
    return this.parts.shares.reserve(share, bytes, bounds, this.parts.stored.used());
  }

  /** A listed share whose copy could not be written: unlisted, leaving nothing. */
  unreserveShare(id: string) {
    this.parts.shares.unreserve(id);
  }

  shares(origin: string) {
    return this.parts.shares.list(origin);
  }

  /** Revokes a share: its link is 404 from now on, its files gone. False: no such share. */
  deleteShare(id: string) {
    return this.parts.shares.revoke(id);
  }

  /** A share as anyone with its link reads it (the link is the credential): for one made before its readers' copy. */
  sharedThread(id: string) {
    return this.parts.shares.read(id);
  }

  // --- API keys and the compatible endpoints' threads ----------------------------------------------

  /** A new key, its secret in this answer only; null past `max` live keys (the caller's configuration). */
  createApiKey(name: string, max: number) {
    return this.parts.keys.create(name, max);
  }

  apiKeys() {
    return this.parts.keys.list();
  }

  revokeApiKey(id: string) {
    return this.parts.keys.revoke(id);
  }

  /**
   * A program's request, in one call: the key whose secret hashes to `keyHash` (null: the caller is
   * already known, AUTH_MODE none), the thread whose conversation has `fingerprint`, and whether
   * `projectId` is one of the user's projects. null: no such key (or it was revoked).
   */
  apiRequest(keyHash: string | null, fingerprint: string | null, projectId: string | null) {
    const { keys, conversations, projects, owner } = this.parts;
    if (keyHash !== null && !keys.use(keyHash)) return null;
    return {
      userId: owner.owner,
      continuation: fingerprint ? conversations.find(fingerprint) : null,
      projectFound: projectId ? projects.get(projectId) !== null : true,
    };
  }

  /** An API thread's conversation as its last answer left it (api-access/conversations.ts). */
  rememberApiConversation(threadId: string, fingerprint: string, headId: string) {
    this.parts.conversations.remember(threadId, fingerprint, headId);
  }

  async alarm(): Promise<void> {
    const { alarms, mirror, meter } = this.parts;
    alarms.cleared();
    const before = meter.read();
    await mirror.onAlarm();
    // What the user's roll-ups cost D1, on a line of its own (npm run bench adds it to the runs').
    const cost = since(meter.read(), before);
    if (cost.d1Rows) this.parts.logger.info("usage days flushed", { cost });
  }
}
