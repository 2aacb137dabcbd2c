// ThreadRoom: one Durable Object per thread, its primary store and single writer. Lifecycle:
//   constructor  builds the parts, each from those before it; then onStart sends the end events a
//                restart held back and wakes the queue
//   RPC          create, get, post, accept, stop, prewarm, ... each for a caller it checks
//   onConnect    (fetch) a hibernatable WebSocket: `ready`, then replay, then live events; its frames
//                (webSocketMessage): ping, stop, send
//   onAlarm      (alarm) the run queue's watchdog, approvals that expired, the outflow's retries (D1, the
//                owner's object), sockets whose credential expired
import { DurableObject } from "cloudflare:workers";
import type { Artifact, ArtifactInfo, Attachment, EventMap, EventName, Message, PendingApproval, Schedule, Thread } from "../../protocol";
import { database, newUsage, type D1Usage, type Db } from "../db/client";
import { configOf, type Env } from "../env";
import { createInvoker } from "../invoker/client";
import { MonotonicClock } from "../lib/ids";
import { consoleLogger } from "../lib/logger";
import { PluginHost } from "../plugins/host";
import { PLUGINS } from "../plugins/registry";
import { Alarms } from "../lib/alarms";
import { Approvals } from "./approvals";
import { BranchCopies, type BranchExport, type BranchSnapshot } from "./branch-copies";
import { Broadcaster } from "./broadcaster";
import { Calibration } from "./context-window";
import { FileBlocks } from "./file-blocks";
import { Intake, type Accepted, type AcceptInput } from "./intake";
import { LegacyImport } from "./legacy-import";
import { Outflow, type Mirrored } from "./outflow";
import type { PostInput } from "./post-input";
import { ModelView } from "./model-view";
import { modelPort, pluginContextFor } from "./plugin-context";
import { ok, refuse, type Caller, type RoomReply } from "./room-reply";
import { RunQueue } from "./run-queue";
import { Scheduler, type ScheduleOp } from "./scheduler";
import { SocketHub } from "./sockets";
import { SpendGuard } from "./spend";
import { StepZero } from "./step-zero";
import { RoomStore, type FileRecord, type ListQuery, type ThreadRecord } from "./store";
import { publicAttachment } from "./store/files";
import { newThreadRecord, publicThread, type ThreadEdits, type ThreadInit } from "./store/thread-row";
import { ThreadWriter } from "./writer";
import { userStub } from "../user/stub";

export class ThreadRoom extends DurableObject<Env> {
  private readonly store: RoomStore;
  private readonly writer: ThreadWriter;
  private readonly alarms: Alarms;
  private readonly d1Usage: D1Usage = newUsage();
  // What tests reach in for: D1 down or slow, the limiter on posts (a tight one), the owner's object away.
  readonly d1Faults = { down: false, delayMs: 0 };
  readonly limits: { posts?: RateLimit };
  readonly userFaults = { down: false };
  private readonly db: Db;
  private readonly outflow: Outflow;
  private readonly stepZero: StepZero;
  private readonly spend: SpendGuard;
  private readonly view: ModelView;
  private readonly plugins: PluginHost;
  private readonly events: Broadcaster;
  private readonly queue: RunQueue;
  private readonly intake: Intake;
  private readonly sockets: SocketHub;
  private readonly approvals: Approvals;
  private readonly legacy: LegacyImport;
  private readonly scheduler: Scheduler;
  /** Set once the thread is being deleted: this instance takes no more work. */
  private closing = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const config = configOf(env);
    this.limits = { posts: env.POST_LIMITER };
    const logger = consoleLogger("room");
    this.store = new RoomStore(ctx.storage);
    this.writer = new ThreadWriter(this.store, new MonotonicClock());
    this.alarms = new Alarms(ctx.storage);
    this.db = database(env, this.d1Usage, this.d1Faults);
    const owner = (ownerId: string) => userStub(env, ownerId, this.userFaults);
    this.outflow = new Outflow(this.store, this.db.$client, this.d1Usage, owner, this.alarms, logger);
    this.stepZero = new StepZero(this.store.cache, this.db, owner, () => this.store.thread.get()?.projectId ?? null, config, logger);
    this.spend = new SpendGuard(this.store.cache, this.alarms, owner, config, logger);
    this.view = new ModelView(this.store);
    this.legacy = new LegacyImport(this.db, this.store, this.writer);
    const invoker = createInvoker(env, config);
    this.plugins = new PluginHost(PLUGINS, logger, config.hookTimeoutMs);
    this.events = new Broadcaster(this.store, ctx, this.plugins);
    const { store, writer, events, plugins, view, stepZero, spend, limits, outflow } = this;
    this.approvals = new Approvals(store, ctx.storage.sql, events, this.alarms, () => this.reportApprovals());
    const calibration = new Calibration(store.cache);
    const files = new FileBlocks(env.FILES, store.files, () => stepZero.current?.project?.files ?? []);
    const runParts = { store, writer, events, plugins, invoker, view, calibration, files, stepZero, spend, logger, config, approvals: this.approvals, user: owner };
    this.queue = new RunQueue(runParts, { alarms: this.alarms, d1: this.d1Usage, afterRun: () => this.afterRun(), waitUntil: (p) => ctx.waitUntil(p) });
    this.intake = new Intake({ store, writer, events, spend, queue: this.queue, outflow, config, limits, waitUntil: (p) => ctx.waitUntil(p) });
    this.sockets = new SocketHub(ctx, store, events, this.queue);
    this.scheduler = new Scheduler({ store, intake: this.intake, outflow, alarms: this.alarms, user: owner, config, logger });
    // The plugins come first (the broadcaster tells them every frame) and register last: what they are
    // lent includes the intake, through which they post into their own thread.
    const lent = { env, ctx, model: modelPort(env, config, invoker), user: owner, store, writer, events, stepZero, intake: this.intake, scheduler: this.scheduler };
    this.plugins.register((def, settings, host) => pluginContextFor(def, settings, host, lent));
    ctx.blockConcurrencyWhile(() => this.onStart());
  }

  private async onStart(): Promise<void> {
    this.queue.recover();
    // Work left in the queue means the last instance stopped mid-way: let the watchdog pick it up.
    if (this.store.runs.head()) await this.alarms.request(Date.now());
    if (this.outflow.waiting()) await this.alarms.request(Date.now() + 1_000);
    await this.scheduler.wake();
  }

  // --- RPC from the Worker and from other threads ------------------------------------------

  async create(who: Caller, init: ThreadInit): Promise<RoomReply<Thread>> {
    if (this.store.deleted || this.store.thread.get()) return refuse("conflict", "This thread already exists");
    const thread = this.writer.createThread(newThreadRecord(who.threadId, who.userId, init, Date.now()));
    // The thread list is the owner's object's: the new thread is in it before the answer (unless it is
    // away; then the alarm reports it). D1 gets it with the same flush.
    await this.outflow.flush();
    return ok(thread);
  }

  get(who: Caller): Promise<RoomReply<Thread>> {
    return this.withThread(who, (t) => ok(publicThread(t)));
  }

  patch(who: Caller, edits: ThreadEdits): Promise<RoomReply<Thread>> {
    return this.withThread(who, async (t) => {
      const updated = publicThread(this.writer.updateThread({ ...edits, ...(edits.name ? { named: true } : {}) }));
      this.events.emit("thread:updated", { threadId: t.id, thread: updated });
      // The list shows the new name (or status) once this answers.
      await this.outflow.reported();
      return ok(updated);
    });
  }

  messages(who: Caller, q: ListQuery): Promise<RoomReply<{ messages: Message[]; lastSeq: number }>> {
    return this.withThread(who, (t) => {
      // The cursor comes before the rows, and during a run before the run: a reload misses nothing.
      const lastSeq = this.sockets.replayCursor();
      const messages = this.store.messages.listBranch(t.headId, q);
      return messages ? ok({ messages, lastSeq }) : refuse("not_found", "No such message to page before");
    });
  }

  /** A file uploaded to this thread (its bytes already in R2): posts may now name it. */
  addFile(who: Caller, file: FileRecord): Promise<RoomReply<Attachment>> {
    return this.withThread(who, () => {
      this.store.files.add(file);
      return ok(publicAttachment(file));
    });
  }

  file(who: Caller, id: string): Promise<RoomReply<FileRecord>> {
    return this.withThread(who, () => {
      const file = this.store.files.get(id);
      return file ? ok(file) : refuse("not_found", "No such attachment in this thread");
    });
  }

  /** The current branch: its text and artifacts (an export), or a share's copy of it (worker/thread/branch-copies.ts). */
  exportBranch(who: Caller): Promise<RoomReply<BranchExport>> {
    return this.withThread(who, (t) => ok(new BranchCopies(this.store).export(t)));
  }

  snapshot(who: Caller, shareId: string): Promise<RoomReply<BranchSnapshot>> {
    return this.withThread(who, (t) => ok(new BranchCopies(this.store).snapshot(t, shareId)));
  }

  /** The current branch's artifacts, or one of them (a version of it there). */
  artifacts(who: Caller, one?: { id: string; version?: number }): Promise<RoomReply<ArtifactInfo[] | Artifact>> {
    return this.withThread<ArtifactInfo[] | Artifact>(who, (t) => {
      if (!one) return ok(this.store.artifacts.list(t.headId));
      const artifact = this.store.artifacts.get(t.headId, one.id, one.version);
      return artifact ? ok(artifact) : refuse("not_found", "No such artifact, or version of it, on this branch");
    });
  }

  /**
   * A person's message (POST messages, /api/chat; the socket's send frame takes the same path): their
   * checks, then stored and queued, answered at once; the same clientMessageId answers the first.
   */
  post(who: Caller, input: PostInput): Promise<Accepted> {
    return this.withThread(who, (t) => this.intake.post(t, who.userId, input, who.requestId));
  }

  /** A message from another thread's object or a plugin: stored and queued (the spend cap if it runs). */
  accept(who: Caller, input: AcceptInput): Promise<Accepted> {
    return this.withThread(who, async (t) => {
      const overCap = input.run !== false && (await this.intake.overCap(t, input.clientMessageId));
      return overCap || this.intake.accept(t, { ...input, requestId: who.requestId });
    });
  }

  /** A new version of a user message, on a branch of its own that becomes current. */
  edit(who: Caller, messageId: string, input: AcceptInput): Promise<Accepted> {
    return this.withThread(who, async (t) => (await this.intake.personChecks(t, who.userId, input)) || this.intake.edit(t, messageId, { ...input, requestId: who.requestId }));
  }

  regenerate(who: Caller, messageId: string, clientMessageId?: string): Promise<Accepted> {
    return this.withThread(who, async (t) => (await this.intake.personChecks(t, who.userId, { clientMessageId })) || this.intake.regenerate(t, messageId, clientMessageId, who.requestId));
  }

  /** Switches to the branch that holds a user message. */
  setHead(who: Caller, messageId: string): Promise<RoomReply<Thread>> {
    return this.withThread(who, (t) => this.intake.setHead(t, messageId));
  }

  stop(who: Caller): Promise<RoomReply<{ stopped: boolean }>> {
    return this.withThread(who, () => ok({ stopped: this.queue.stop() }));
  }

  /** Whether a run is in progress, and how many messages wait (tests settle on this). */
  activity(): { running: boolean; queued: number } {
    return { running: this.queue.runningId !== null, queued: this.store.runs.queued() };
  }

  /** Loads the thread (from D1 once, for an old one) and what its first run needs: the post waits on nothing. */
  prewarm(who: Caller): Promise<RoomReply<{ running: boolean; queued: number }>> {
    return this.withThread(who, async (t) => {
      await this.queue.prewarm(t);
      return ok(this.activity());
    });
  }

  /** The thread's schedules: list, create, update, delete (worker/thread/scheduler.ts). */
  schedules(who: Caller, q: ScheduleOp): Promise<RoomReply<Schedule[] | Schedule | null>> {
    return this.withThread(who, (t) => this.scheduler.handle(t, q));
  }

  /** A task was cancelled: plugins end it first (so its stopped run does not iterate again), then its runs go. */
  cancelTask(who: Caller, taskId: string): Promise<RoomReply<null>> {
    return this.withThread(who, async () => {
      await this.plugins.notify("onTaskCancel", taskId);
      this.queue.cancelTask(taskId);
      return ok(null);
    });
  }

  /** Broadcasts on this thread for another thread's object (task events, notifications). */
  broadcastEvent<K extends EventName>(who: Caller, event: K, data: EventMap[K]): Promise<RoomReply<null>> {
    return this.withThread(who, () => {
      this.events.emit(event, data);
      return ok(null);
    });
  }

  /** The thread's project was deleted (its owner's object tells it): the thread leaves it. */
  async leaveProject(projectId: string): Promise<void> {
    const t = this.store.thread.get();
    if (!t || t.projectId !== projectId || this.closing) return;
    this.events.emit("thread:updated", { threadId: t.id, thread: publicThread(this.writer.updateThread({ projectId: null })) });
    await this.outflow.reported();
  }

  /** A config (D1) or the owner's context files (their object) changed: the next run reads step 0's inputs again. */
  async invalidate(): Promise<void> {
    this.stepZero.invalidate();
  }

  /** The thread was deleted: stop, let the run and a flush unwind, disconnect, forget everything. */
  destroy(who: Caller): Promise<RoomReply<null>> {
    return this.withThread(who, async () => {
      this.closing = true;
      await this.queue.close();
      await this.outflow.settled();
      await this.plugins.stop();
      this.sockets.closeAll("thread deleted");
      await this.store.destroy();
      this.alarms.cleared();
      this.view.forget();
      return ok(null);
    });
  }

  // --- Approvals ------------------------------------------------------------------------------

  /** The user's decision on a call that waits (404 unknown, 409 decided); the run goes on from it. */
  decide(who: Caller, runId: string, toolUseId: string, approve: boolean): Promise<RoomReply<{ approval: PendingApproval; approve: boolean }>> {
    return this.withThread(who, (t) => {
      const asked = t.pendingApprovals?.find((p) => p.toolUseId === toolUseId && p.runId === runId);
      const outcome = this.approvals.decide(runId, toolUseId, approve);
      if (outcome === "unknown") return refuse("not_found", "No such tool call waits for approval");
      if (outcome === "decided") return refuse("conflict", "This tool call was already decided");
      // No instance held the wait (the object restarted): the queue goes on from the run's point.
      if (outcome === "waiting") this.queue.wake();
      return ok({ approval: asked!, approve });
    });
  }

  /** The owner's list shows the thread's waiting calls (its badge). */
  private reportApprovals(): void {
    const t = this.store.thread.get();
    if (!t) return;
    this.store.report.put("approvals", t.id, { id: t.id, ownerId: t.ownerId, pending: t.pendingApprovals ?? [] });
    this.ctx.waitUntil(this.outflow.reported());
  }

  // --- WebSockets (hibernatable), alarm -------------------------------------------------------

  /** A one-use ticket that opens this thread's socket for `who` within a minute (no token in a URL). */
  issueTicket(who: Caller, credentialExpiresAt: number | null): Promise<RoomReply<{ ticket: string; expiresAt: number }>> {
    return this.withThread(who, () => ok(this.store.tickets.issue(who.userId, credentialExpiresAt)));
  }

  /**
   * A socket, for the user the Worker authenticated (x-user-id) or whom a ticket names (x-ws-ticket);
   * the Worker sets both headers itself. A credential that expires closes the socket when it does.
   */
  async fetch(request: Request): Promise<Response> {
    const who = this.sockets.credentialOf(request);
    if (!who) return Response.json({ error: { code: "unauthorized", message: "This ticket is unknown, used or expired" } }, { status: 401 });
    if (!(await this.open(who))) return Response.json({ error: { code: "not_found", message: "Thread not found" } }, { status: 404 });
    if (who.expiresAt !== null) await this.alarms.request(who.expiresAt);
    return this.sockets.connect(request, who.userId, who.expiresAt);
  }

  async webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer): Promise<void> {
    await this.sockets.onMessage(ws, raw, { stop: () => this.queue.stop(), post: (who, input) => this.post(who, input) });
  }

  async webSocketClose(ws: WebSocket): Promise<void> {
    this.sockets.onClose(ws);
  }

  async webSocketError(ws: WebSocket): Promise<void> {
    this.sockets.onClose(ws);
  }

  async alarm(): Promise<void> {
    this.alarms.cleared();
    if (this.closing || this.store.deleted) return;
    const nextExpiry = this.sockets.closeExpired();
    if (nextExpiry !== null) await this.alarms.request(nextExpiry);
    // Calls nobody decided in time are declined; a run no instance holds goes on from its point.
    if (this.approvals.expire()) this.queue.wake();
    await this.queue.heartbeat(this.approvals.nextExpiry());
    await this.outflow.onAlarm();
    await this.spend.onAlarm(this.store.thread.get()?.ownerId);
    await this.scheduler.onAlarm();
  }

  /** `fn` with the thread, if `who` may reach it; else not_found, as for a thread that does not exist. */
  private async withThread<T>(who: Caller, fn: (t: ThreadRecord) => RoomReply<T> | Promise<RoomReply<T>>): Promise<RoomReply<T>> {
    const t = await this.open(who);
    return t ? fn(t) : refuse("not_found", "Thread not found");
  }

  /** The thread, loaded (from D1 once, for a thread older than this store), if `who` may reach it. */
  private async open(who: Caller): Promise<ThreadRecord | null> {
    if (this.closing) return null;
    const t = this.store.thread.get() ?? (!this.store.deleted && who.threadId ? await this.legacy.load(who.threadId) : null);
    return t && t.id === who.threadId && t.ownerId === who.userId ? t : null;
  }

  private afterRun(): Promise<Mirrored> {
    const owner = this.store.thread.get()?.ownerId;
    if (!owner || this.closing) return Promise.resolve({ rows: 0, d1RoundTrips: 0 });
    const flushed = this.outflow.afterRun(this.stepZero.revalidation(owner));
    this.ctx.waitUntil(flushed);
    this.ctx.waitUntil(this.spend.settleLater(owner));
    return flushed;
  }
}
