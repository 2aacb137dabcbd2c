// ThreadRoom: one Durable Object per thread, its primary store and single writer. Lifecycle:
//   onStart     (constructor) open the store, send end events a restart held back, wake the queue
//   RPC         create, get, patch, messages, accept, stop, prewarm, ... each for a caller it checks
//   onConnect   (fetch) a hibernatable WebSocket: `ready`, then replay, then live events
//   onMessage   (webSocketMessage) ping / stop frames
//   onClose     (webSocketClose)
//   onAlarm     (alarm) the run queue's watchdog, the mirror's retries, sockets whose credential expired
import { DurableObject } from "cloudflare:workers";
import type { Attachment, EventMap, EventName, Message, Thread } from "../../protocol";
import type { Env } from "../env";
import type { NewThread } from "../plugins/contract";
import type { Accepted, AcceptInput } from "./intake";
import { importFromD1 } from "./legacy-import";
import { buildParts, type RoomParts } from "./room-parts";
import { ok, refuse, type Caller, type RoomReply } from "./room-stub";
import type { FileRecord, ListQuery, ThreadRecord } from "./store";
import { publicAttachment } from "./store/files";
import { publicThread } from "./store/thread-row";
import { combineReads } from "../db/batch";
import type { Mirrored } from "./run-queue";

export type ThreadInit = Partial<Pick<NewThread, "parentThreadId" | "source">> & Pick<NewThread, "name" | "kind" | "model"> & { named?: boolean };
export type ThreadEdits = Partial<Pick<Thread, "name" | "model" | "status" | "instructions">>;

export class ThreadRoom extends DurableObject<Env> {
  private readonly p: RoomParts;
  private importing: Promise<ThreadRecord | null> | null = null;
  /** Set once the thread is being deleted: this instance takes no more work. */
  private closing = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.p = buildParts(ctx, env, () => this.afterRun());
    ctx.blockConcurrencyWhile(() => this.onStart());
  }

  /** Tests: `down` makes every D1 round trip of this object fail; `delayMs` slows each. */
  get d1Faults() {
    return this.p.d1Faults;
  }

  private async onStart(): Promise<void> {
    this.p.queue.recover();
    // Work left in the queue means the last instance stopped mid-way: let the watchdog pick it up.
    if (this.p.store.runs.head()) await this.p.alarms.request(Date.now());
    if (this.p.store.outbox.size()) await this.p.alarms.request(Date.now() + 1_000);
  }

  // --- RPC from the Worker and from other threads ------------------------------------------

  async create(who: Caller, init: ThreadInit): Promise<RoomReply<Thread>> {
    if (this.p.store.deleted || this.p.store.thread.get()) return refuse("conflict", "This thread already exists");
    const now = Date.now();
    const thread = this.p.writer.createThread({
      id: who.threadId,
      ownerId: who.userId,
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
      lastActivity: now,
      createdAt: now,
      updatedAt: now,
    });
    // The thread list is D1's: the new thread is in it before the answer (unless D1 is away).
    await this.p.mirror.flush();
    return ok(thread);
  }

  async get(who: Caller): Promise<RoomReply<Thread>> {
    const t = await this.open(who);
    return t ? ok(publicThread(t)) : notFound();
  }

  async patch(who: Caller, edits: ThreadEdits): Promise<RoomReply<Thread>> {
    const t = await this.open(who);
    if (!t) return notFound();
    const updated = publicThread(this.p.writer.updateThread({ ...edits, ...(edits.name ? { named: true } : {}) }));
    this.p.events.emit("thread:updated", { threadId: t.id, thread: updated });
    this.ctx.waitUntil(this.p.mirror.flush());
    return ok(updated);
  }

  async messages(who: Caller, q: ListQuery): Promise<RoomReply<{ messages: Message[]; lastSeq: number }>> {
    const t = await this.open(who);
    if (!t) return notFound();
    // The cursor is taken before the rows: whatever happens after is replayed, not missed. During a
    // run it is the seq just before the run, so a reload mid-stream gets the whole reply so far.
    const lastSeq = this.p.sockets.replayCursor();
    const messages = this.p.store.messages.listBranch(t.headId, q);
    return messages ? ok({ messages, lastSeq }) : refuse("not_found", "No such message to page before");
  }

  /** A file uploaded to this thread (its bytes already in R2): posts may now name it. */
  async addFile(who: Caller, file: FileRecord): Promise<RoomReply<Attachment>> {
    if (!(await this.open(who))) return notFound();
    this.p.store.files.add(file);
    return ok(publicAttachment(file));
  }

  async file(who: Caller, id: string): Promise<RoomReply<FileRecord>> {
    if (!(await this.open(who))) return notFound();
    const file = this.p.store.files.get(id);
    return file ? ok(file) : refuse("not_found", "No such attachment in this thread");
  }

  /** The thread and every text message of its current branch, oldest first (an export). */
  async exportBranch(who: Caller): Promise<RoomReply<{ thread: Thread; messages: Message[] }>> {
    const t = await this.open(who);
    if (!t) return notFound();
    const messages = this.p.store.messages.listBranch(t.headId, { limit: 1_000_000, kinds: ["text"] }) ?? [];
    return ok({ thread: publicThread(t), messages });
  }

  /** Stores a message, queues its run, and answers at once; the same clientMessageId answers the first. */
  async accept(who: Caller, input: AcceptInput): Promise<Accepted> {
    const t = await this.open(who);
    if (!t) return notFound();
    return (input.run !== false && (await this.overCap(t, input.clientMessageId))) || this.p.intake.accept(t, { ...input, requestId: who.requestId });
  }

  /** A new version of a user message, on a branch of its own that becomes current. */
  async edit(who: Caller, messageId: string, input: AcceptInput): Promise<Accepted> {
    const t = await this.open(who);
    if (!t) return notFound();
    return (await this.overCap(t, input.clientMessageId)) || this.p.intake.edit(t, messageId, { ...input, requestId: who.requestId });
  }

  async regenerate(who: Caller, messageId: string, clientMessageId?: string): Promise<Accepted> {
    const t = await this.open(who);
    if (!t) return notFound();
    return (await this.overCap(t, clientMessageId)) || this.p.intake.regenerate(t, messageId, clientMessageId, who.requestId);
  }

  /** Switches to the branch that holds a user message. */
  async setHead(who: Caller, messageId: string): Promise<RoomReply<Thread>> {
    const t = await this.open(who);
    return t ? this.p.intake.setHead(t, messageId) : notFound();
  }

  async stop(who: Caller): Promise<RoomReply<{ stopped: boolean }>> {
    return (await this.open(who)) ? ok({ stopped: this.p.queue.stop() }) : notFound();
  }

  /** Whether a run is in progress, and how many messages wait (tests settle on this). */
  activity(): { running: boolean; queued: number } {
    return { running: this.p.queue.running !== null, queued: this.p.store.runs.queued() };
  }

  /**
   * Loads what a first post needs before it comes: the thread (from D1 once, for an old one), the
   * model's view of its branch, step 0's inputs and the plugins they configure, the spend so far.
   * Whatever needed D1 is then held, so the post that follows waits on nothing.
   */
  async prewarm(who: Caller): Promise<RoomReply<{ running: boolean; queued: number }>> {
    const t = await this.open(who);
    if (!t) return notFound();
    this.p.view.before(t.headId);
    const inputs = await this.p.stepZero.forRun(t.ownerId);
    this.p.plugins.apply(inputs.configs);
    await Promise.all([this.p.plugins.start(), this.p.spend.check(t.ownerId)]);
    return ok(this.activity());
  }

  /**
   * A task was cancelled: plugins end it first (so its run, once stopped, finds it ended and does not
   * iterate again), then its waiting iterations go and its running one is stopped.
   */
  async cancelTask(who: Caller, taskId: string): Promise<RoomReply<null>> {
    if (!(await this.open(who))) return notFound();
    await this.p.plugins.notify("onTaskCancel", taskId);
    this.p.queue.cancelTask(taskId);
    return ok(null);
  }

  /** Broadcasts on this thread for another thread's object (task events, notifications). */
  async broadcastEvent<K extends EventName>(who: Caller, event: K, data: EventMap[K]): Promise<RoomReply<null>> {
    if (!(await this.open(who))) return notFound();
    this.p.events.emit(event, data);
    return ok(null);
  }

  /** A config or context file changed in D1: the next run reads step 0's inputs again. */
  async invalidate(): Promise<void> {
    this.p.stepZero.invalidate();
  }

  /** The thread was deleted: stop, let the run and a flush unwind, disconnect, forget everything. */
  async destroy(who: Caller): Promise<RoomReply<null>> {
    if (!(await this.open(who))) return notFound();
    this.closing = true;
    await this.p.queue.close();
    await this.p.mirror.settled();
    await this.p.plugins.stop();
    this.p.sockets.closeAll("thread deleted");
    await this.p.store.destroy();
    this.p.alarms.cleared();
    this.p.view.forget();
    return ok(null);
  }

  // --- WebSockets (hibernatable), alarm -------------------------------------------------------

  /** A one-use ticket that opens this thread's socket for `who` within a minute (no token in a URL). */
  async issueTicket(who: Caller, credentialExpiresAt: number | null): Promise<RoomReply<{ ticket: string; expiresAt: number }>> {
    if (!(await this.open(who))) return notFound();
    return ok(this.p.store.tickets.issue(who.userId, credentialExpiresAt));
  }

  /**
   * A socket, for the user the Worker authenticated (x-user-id) or whom a ticket names (x-ws-ticket);
   * the Worker sets both headers itself. A credential that expires closes the socket when it does.
   */
  async fetch(request: Request): Promise<Response> {
    const threadId = request.headers.get("x-thread-id") ?? "";
    const ticket = request.headers.get("x-ws-ticket");
    const redeemed = ticket ? this.p.store.tickets.redeem(ticket) : null;
    const userId = ticket ? (redeemed?.userId ?? "") : (request.headers.get("x-user-id") ?? "");
    const header = request.headers.get("x-credential-expires-at");
    const expiresAt = ticket ? (redeemed?.credentialExpiresAt ?? null) : header ? Number(header) : null;
    if (ticket && !redeemed) return Response.json({ error: { code: "unauthorized", message: "This ticket is unknown, used or expired" } }, { status: 401 });
    if (!(await this.open({ threadId, userId }))) return Response.json({ error: { code: "not_found", message: "Thread not found" } }, { status: 404 });
    if (expiresAt !== null) await this.p.alarms.request(expiresAt);
    return this.p.sockets.connect(request, userId, expiresAt);
  }

  async webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer): Promise<void> {
    if (this.p.sockets.onMessage(ws, raw) === "stop") this.p.queue.stop();
  }

  async webSocketClose(ws: WebSocket): Promise<void> {
    this.p.sockets.onClose(ws);
  }

  async webSocketError(ws: WebSocket): Promise<void> {
    this.p.sockets.onClose(ws);
  }

  async alarm(): Promise<void> {
    this.p.alarms.cleared();
    if (this.closing || this.p.store.deleted) return;
    const nextExpiry = this.p.sockets.closeExpired();
    if (nextExpiry !== null) await this.p.alarms.request(nextExpiry);
    await this.p.queue.heartbeat();
    await this.p.mirror.onAlarm();
  }

  // --- inside ----------------------------------------------------------------------------------

  /** The thread, loaded (from D1 once, for a thread older than this store), if `who` may reach it. */
  private async open(who: Caller): Promise<ThreadRecord | null> {
    if (this.closing) return null;
    let t = this.p.store.thread.get();
    if (!t && !this.p.store.deleted && who.threadId) {
      this.importing ??= importFromD1(this.p.db, this.p.store, this.p.writer, who.threadId).finally(() => (this.importing = null));
      t = await this.importing;
    }
    return t && t.id === who.threadId && t.ownerId === who.userId ? t : null;
  }

  /** The owner's daily spend cap, for a post that would start a run (a repeated post is answered as before). */
  private async overCap(t: ThreadRecord, clientMessageId?: string): Promise<RoomReply<never> | null> {
    if (clientMessageId && this.p.store.messages.byClientId(clientMessageId)) return null;
    const refusal = await this.p.spend.check(t.ownerId);
    return refusal && refuse(refusal.code, refusal.message, refusal.retryAfterSec);
  }

  private afterRun(): Promise<Mirrored> {
    const owner = this.p.store.thread.get()?.ownerId;
    if (!owner || this.closing) return Promise.resolve({ rows: 0, d1RoundTrips: 0 });
    const before = this.p.d1Usage.roundTrips;
    const reads = combineReads(this.p.stepZero.revalidation(owner), this.p.spend.revalidation(owner));
    const flushed = this.p.mirror.flush(reads).then((rows) => ({ rows, d1RoundTrips: this.p.d1Usage.roundTrips - before }));
    this.ctx.waitUntil(flushed);
    return flushed;
  }
}

const notFound = () => refuse("not_found", "Thread not found");
