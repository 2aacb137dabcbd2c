// ThreadRoom: one Durable Object per thread, its primary store and single writer. Lifecycle:
//   constructor  builds the parts (room-parts.ts) and starts them, if the object holds a thread: one that
//                holds none stays empty until a thread is made (or imported) in it
//   RPC          create, get, post, accept, stop, prewarm, ... each for a caller it checks
//   onConnect    (fetch) a hibernatable WebSocket: `ready`, then replay, then live events; its frames
//                (webSocketMessage): ping, stop, send
//   onAlarm      (alarm) the run queue's watchdog, approvals that expired, the outflow's retries (D1, the
//                owner's object), sockets whose credential expired
import { DurableObject } from "cloudflare:workers";
import type { Artifact, ArtifactInfo, Attachment, EventMap, EventName, Message, PendingApproval, ProducedFile, Research, Schedule, ScheduleBody, StartResearchBody, Thread } from "../../protocol";
import { database } from "../db/client";
import { configOf, type Env } from "../env";
import { LegacyImport } from "./legacy-import";
import type { AskInput, Asked } from "./program-ask";
import { BranchCopies, type BranchExport, type BranchSnapshot } from "./branch-copies";
import type { Accepted, AcceptInput } from "./intake";
import type { OtherThread } from "./other-threads";
import type { PostInput } from "./post-input";
import { ok, refuse, type Caller, type RoomReply } from "./room-reply";
import { destroyParts, roomParts, startParts, type RoomFaults, type RoomParts } from "./room-parts";
import type { FileRecord, ListQuery, ThreadRecord } from "./store";
import { publicAttachment } from "./store/files";
import { publicProduced, type ProducedRecord } from "./store/produced-files";
import { newThreadRecord, publicThread, type ThreadEdits, type ThreadInit } from "./store/thread-row";

export class ThreadRoom extends DurableObject<Env> implements OtherThread {
  /** What tests reach in for: D1 down or slow, the limiter on posts (a tight one), the owner's object away. */
  readonly faults: RoomFaults;
  private built: RoomParts | null = null;
  private readonly legacy: LegacyImport;
  /** Set once the thread is being deleted: this instance takes no more work. */
  private closing = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.faults = { d1: { down: false, delayMs: 0 }, limits: { posts: env.POST_LIMITER }, user: { down: false } };
    this.legacy = new LegacyImport(configOf(env).legacyImport ? database(env, undefined, this.faults.d1) : null, () => this.parts);
    // A request for an id no thread has leaves no storage behind.
    if (ctx.storage.sql.exec("SELECT 1 FROM sqlite_master LIMIT 1").toArray().length) void this.parts;
  }

  /** Its parts (room-parts.ts), built at its first need; only tests reach them from outside. */
  get parts(): RoomParts {
    if (!this.built) {
      this.built = roomParts(this.ctx, this.env, this.faults, () => this.closing);
      void this.ctx.blockConcurrencyWhile(() => startParts(this.built!));
    }
    return this.built;
  }

  // --- RPC from the Worker and from other threads ------------------------------------------

  async create(who: Caller, init: ThreadInit): Promise<RoomReply<Thread>> {
    if (this.parts.store.deleted || this.parts.store.thread.get()) return refuse("conflict", "This thread already exists");
    const thread = this.parts.writer.createThread(newThreadRecord(who.threadId, who.userId, init, Date.now()));
    // The thread list is the owner's object's: the new thread is in it before the answer (unless it is
    // away; then the alarm reports it). D1's directory gets it after.
    await this.parts.outflow.changed((p) => this.ctx.waitUntil(p));
    return ok(thread);
  }

  get(who: Caller): Promise<RoomReply<Thread>> {
    return this.withThread(who, (t) => ok(publicThread(t)));
  }

  patch(who: Caller, edits: ThreadEdits): Promise<RoomReply<Thread>> {
    return this.withThread(who, async (t) => {
      const updated = this.parts.writer.updateThread({ ...edits, ...(edits.name ? { named: true } : {}) });
      this.parts.events.threadUpdated(updated);
      // The list shows the new name (or status) once this answers.
      await this.parts.outflow.changed((p) => this.ctx.waitUntil(p));
      return ok(publicThread(updated));
    });
  }

  messages(who: Caller, q: ListQuery): Promise<RoomReply<{ messages: Message[]; lastSeq: number }>> {
    return this.withThread(who, (t) => {
      // The cursor comes before the rows, and during a run before the run: a reload misses nothing.
      const lastSeq = this.parts.sockets.replayCursor();
      const messages = this.parts.store.messages.listBranch(t.headId, q);
      return messages ? ok({ messages, lastSeq }) : refuse("not_found", "No such message to page before");
    });
  }

  /** A file uploaded to this thread (its bytes already in R2): posts may now name it. */
  addFile(who: Caller, file: FileRecord): Promise<RoomReply<Attachment>> {
    return this.withThread(who, () => {
      this.parts.store.files.add(file);
      return ok(publicAttachment(file));
    });
  }

  file(who: Caller, id: string): Promise<RoomReply<FileRecord>> {
    return this.withThread(who, () => {
      const file = this.parts.store.files.get(id);
      return file ? ok(file) : refuse("not_found", "No such attachment in this thread");
    });
  }

  /** The files the thread's code produced, newest first; or one, with where its bytes are. */
  produced(who: Caller): Promise<RoomReply<ProducedFile[]>> {
    return this.withThread(who, () => ok(this.parts.store.produced.all().map(publicProduced)));
  }

  producedFile(who: Caller, id: string): Promise<RoomReply<ProducedRecord>> {
    return this.withThread(who, () => {
      const file = this.parts.store.produced.get(id);
      return file ? ok(file) : refuse("not_found", "No such file in this thread");
    });
  }

  /** The current branch: its text and artifacts (an export), or a share's copy of it (worker/thread/branch-copies.ts). */
  exportBranch(who: Caller): Promise<RoomReply<BranchExport>> {
    return this.withThread(who, (t) => ok(new BranchCopies(this.parts.store).export(t)));
  }

  /** The current branch as a share copies it; the files its code wrote where `codeFiles`. */
  snapshot(who: Caller, shareId: string, codeFiles = false): Promise<RoomReply<BranchSnapshot>> {
    return this.withThread(who, (t) => ok(new BranchCopies(this.parts.store).snapshot(t, shareId, codeFiles)));
  }

  /** The current branch's artifacts, or one of them (a version of it there). */
  artifacts(who: Caller, one?: { id: string; version?: number }): Promise<RoomReply<ArtifactInfo[] | Artifact>> {
    return this.withThread<ArtifactInfo[] | Artifact>(who, (t) => {
      if (!one) return ok(this.parts.store.artifacts.list(t.headId));
      const artifact = this.parts.store.artifacts.get(t.headId, one.id, one.version);
      return artifact ? ok(artifact) : refuse("not_found", "No such artifact, or version of it, on this branch");
    });
  }

  /**
   * A person's message (POST messages, /api/chat; the socket's send frame takes the same path): their
   * checks, then stored and queued, answered at once; the same clientMessageId answers the first.
   */
  post(who: Caller, input: PostInput): Promise<Accepted> {
    return this.withThread(who, (t) => this.parts.intake.post(t, who.userId, input, who.requestId));
  }

  /** A program's message (the compatible endpoints, the MCP server's ask): program-ask.ts. */
  async ask(who: Caller, input: AskInput): Promise<Asked> {
    if (!input.create) return this.withThread(who, (t) => this.parts.asks.ask(t, who, input, false));
    if (this.parts.store.deleted || this.parts.store.thread.get()) return refuse("conflict", "This thread already exists");
    const made = await this.parts.asks.create(who, { ...input, create: input.create });
    return made.ok ? this.parts.asks.ask(made.value, who, input, true) : made;
  }

  /** A message from another thread's object or a plugin: stored and queued (the spend cap if it runs). */
  accept(who: Caller, input: AcceptInput): Promise<Accepted> {
    return this.withThread(who, async (t) => {
      // A research task's outcome is its research's news: kept, and no run of its own.
      if (this.parts.research.heard(input.metadata?.taskId)) input = { ...input, run: false };
      const overCap = input.run !== false && (await this.parts.intake.overCap(t, input.clientMessageId));
      return overCap || this.parts.intake.accept(t, { ...input, requestId: who.requestId });
    });
  }

  /** A new version of a user message, on a branch of its own that becomes current. */
  edit(who: Caller, messageId: string, input: AcceptInput): Promise<Accepted> {
    return this.withThread(who, async (t) => (await this.parts.intake.personChecks(t, who.userId, input)) || this.parts.intake.edit(t, messageId, { ...input, requestId: who.requestId }));
  }

  regenerate(who: Caller, messageId: string, clientMessageId?: string): Promise<Accepted> {
    return this.withThread(who, async (t) => (await this.parts.intake.personChecks(t, who.userId, { clientMessageId })) || this.parts.intake.regenerate(t, messageId, clientMessageId, who.requestId));
  }

  /** Switches to the branch that holds a user message. */
  setHead(who: Caller, messageId: string): Promise<RoomReply<Thread>> {
    return this.withThread(who, (t) => this.parts.intake.setHead(t, messageId));
  }

  stop(who: Caller): Promise<RoomReply<{ stopped: boolean }>> {
    return this.withThread(who, () => ok({ stopped: this.parts.queue.stop() }));
  }

  /** Whether a run is in progress, and how many messages wait (a prewarm answers it). */
  activity(): { running: boolean; queued: number } {
    return this.built ? { running: this.built.queue.runningId !== null, queued: this.built.store.runs.queued() } : { running: false, queued: 0 };
  }

  /** Anything left to do: a run, a queued message, or a run's housekeeping (tests wait for none). */
  busy(): boolean {
    const { running, queued } = this.activity();
    return running || queued > 0 || (this.built?.queue.tidying ?? false);
  }

  /** Loads the thread (from D1 once, for an old one) and what its first run needs: the post waits on nothing. */
  prewarm(who: Caller): Promise<RoomReply<{ running: boolean; queued: number }>> {
    return this.withThread(who, async (t) => {
      await this.parts.queue.prewarm(t);
      return ok(this.activity());
    });
  }

  // --- Research (worker/thread/research/) ------------------------------------------------------

  startResearch(who: Caller, body: StartResearchBody): Promise<RoomReply<Research>> {
    return this.withThread(who, (t) => this.parts.research.start(t, body, "web"));
  }

  acceptResearchPlan(who: Caller, id: string, subquestions: string[]): Promise<RoomReply<Research>> {
    return this.withThread(who, () => this.parts.research.accept(id, subquestions));
  }

  stopResearch(who: Caller, id: string): Promise<RoomReply<Research>> {
    return this.withThread(who, () => this.parts.research.stop(id));
  }

  research(who: Caller, id: string): Promise<RoomReply<Research>> {
    return this.withThread(who, () => {
      const r = this.parts.research.get(id);
      return r ? ok(r) : refuse("not_found", "No such research in this thread");
    });
  }

  /** The thread's schedules (worker/thread/scheduler.ts). */
  schedules(who: Caller): Promise<RoomReply<Schedule[]>> {
    return this.withThread(who, () => ok(this.parts.scheduler.list()));
  }

  createSchedule(who: Caller, body: ScheduleBody & { prompt: string }): Promise<RoomReply<Schedule>> {
    return this.withThread(who, (t) => this.parts.scheduler.create(t, body));
  }

  updateSchedule(who: Caller, id: string, body: ScheduleBody): Promise<RoomReply<Schedule>> {
    return this.withThread(who, () => this.parts.scheduler.update(id, body));
  }

  deleteSchedule(who: Caller, id: string): Promise<RoomReply<null>> {
    return this.withThread(who, () => this.parts.scheduler.remove(id));
  }

  /** A task was cancelled: plugins end it first (so its stopped run does not iterate again), then its runs go. */
  cancelTask(who: Caller, taskId: string): Promise<RoomReply<null>> {
    return this.withThread(who, async () => {
      await this.parts.plugins.notify("onTaskCancel", taskId);
      this.parts.queue.cancelTask(taskId);
      return ok(null);
    });
  }

  /** Broadcasts on this thread for another thread's object (task events, notifications). */
  broadcastEvent<K extends EventName>(who: Caller, event: K, data: EventMap[K]): Promise<RoomReply<null>> {
    return this.withThread(who, () => {
      this.parts.events.emit(event, data);
      return ok(null);
    });
  }

  /** The thread's project was deleted (its owner's object tells it): the thread leaves it. */
  async leaveProject(projectId: string): Promise<void> {
    const t = this.built?.store.thread.get();
    if (!t || t.projectId !== projectId || this.closing) return;
    this.parts.events.threadUpdated(this.parts.writer.updateThread({ projectId: null }));
    await this.parts.outflow.changed((p) => this.ctx.waitUntil(p));
  }

  /** A config (D1) or the owner's context files (their object) changed: the next run reads step 0's inputs again. */
  async invalidate(): Promise<void> {
    this.built?.stepZero.invalidate();
  }

  /** The thread was deleted: this instance takes no more work, and its parts unwind and forget everything. */
  destroy(who: Caller): Promise<RoomReply<null>> {
    return this.withThread(who, async () => {
      this.closing = true;
      await destroyParts(this.parts);
      return ok(null);
    });
  }

  // --- Approvals ------------------------------------------------------------------------------

  /** The user's decision on a call that waits (404 unknown, 409 decided); the run goes on from it. */
  decide(who: Caller, runId: string, toolUseId: string, approve: boolean): Promise<RoomReply<{ approval: PendingApproval; approve: boolean }>> {
    return this.withThread(who, (t) => {
      const asked = t.pendingApprovals?.find((p) => p.toolUseId === toolUseId && p.runId === runId);
      const outcome = this.parts.approvals.decide(runId, toolUseId, approve);
      if (outcome === "unknown") return refuse("not_found", "No such tool call waits for approval");
      if (outcome === "decided") return refuse("conflict", "This tool call was already decided");
      // No instance held the wait (the object restarted): the queue goes on from the run's point.
      if (outcome === "waiting") this.parts.queue.wake();
      return ok({ approval: asked!, approve });
    });
  }

  // --- WebSockets (hibernatable), alarm -------------------------------------------------------

  /** A one-use ticket that opens this thread's socket for `who` within a minute (no token in a URL). */
  issueTicket(who: Caller, credentialExpiresAt: number | null): Promise<RoomReply<{ ticket: string; expiresAt: number }>> {
    return this.withThread(who, () => ok(this.parts.store.tickets.issue(who.userId, credentialExpiresAt)));
  }

  /**
   * A socket, for the user the Worker authenticated (x-user-id) or whom a ticket names (x-ws-ticket);
   * the Worker sets both headers itself. A credential that expires closes the socket when it does.
   */
  async fetch(request: Request): Promise<Response> {
    if (!(await this.held(request.headers.get("x-thread-id") ?? ""))) return threadNotFound();
    const who = this.parts.sockets.credentialOf(request);
    if (!who) return Response.json({ error: { code: "unauthorized", message: "This ticket is unknown, used or expired" } }, { status: 401 });
    if (!(await this.open(who))) return threadNotFound();
    if (who.expiresAt !== null) await this.parts.alarms.request(who.expiresAt);
    return this.parts.sockets.connect(request, who.userId, who.expiresAt);
  }

  async webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer): Promise<void> {
    await this.parts.sockets.onMessage(ws, raw);
  }

  async webSocketClose(ws: WebSocket): Promise<void> {
    this.parts.sockets.onClose(ws);
  }

  async webSocketError(ws: WebSocket): Promise<void> {
    this.parts.sockets.onClose(ws);
  }

  async alarm(): Promise<void> {
    if (!this.built) return;
    this.parts.alarms.cleared();
    if (this.closing || this.parts.store.deleted) return;
    const nextExpiry = this.parts.sockets.closeExpired();
    if (nextExpiry !== null) await this.parts.alarms.request(nextExpiry);
    // Calls nobody decided in time are declined; a run no instance holds goes on from its point.
    if (this.parts.approvals.expire()) this.parts.queue.wake();
    await this.parts.queue.heartbeat(this.parts.approvals.nextExpiry());
    await this.parts.outflow.onAlarm();
    await this.parts.spend.onAlarm(this.parts.store.thread.get()?.ownerId);
    await this.parts.scheduler.onAlarm();
    await this.parts.research.onAlarm();
  }

  /** `fn` with the thread, if `who` may reach it; else not_found, as for a thread that does not exist. */
  private async withThread<T>(who: Caller, fn: (t: ThreadRecord) => RoomReply<T> | Promise<RoomReply<T>>): Promise<RoomReply<T>> {
    const t = await this.open(who);
    return t ? fn(t) : refuse("not_found", "Thread not found");
  }

  /** The thread, if `who` may reach it. */
  private async open(who: Caller): Promise<ThreadRecord | null> {
    const t = await this.held(who.threadId);
    return t && t.id === who.threadId && t.ownerId === who.userId ? t : null;
  }

  /** The thread this object holds; one that holds none builds nothing (but may import it: legacy-import.ts). */
  private async held(threadId: string): Promise<ThreadRecord | null> {
    const store = this.built?.store;
    if (this.closing || store?.deleted) return null;
    return store?.thread.get() ?? (threadId ? this.legacy.load(threadId) : null);
  }
}

const threadNotFound = () => Response.json({ error: { code: "not_found", message: "Thread not found" } }, { status: 404 });
