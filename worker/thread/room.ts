// ThreadRoom: one Durable Object per thread, its primary store and single writer. Lifecycle:
//   onStart     (constructor) open the store, send end events a restart held back, wake the queue
//   RPC         create, get, patch, messages, accept, stop, prewarm, ... each for a caller it checks
//   onConnect   (fetch) a hibernatable WebSocket: `ready`, then replay, then live events
//   onMessage   (webSocketMessage) ping / stop frames
//   onClose     (webSocketClose)
//   onAlarm     (alarm) the run queue's watchdog and the mirror's retries
import { DurableObject } from "cloudflare:workers";
import type { Attachment, EventMap, EventName, Message, Thread } from "../../protocol";
import { database, newUsage, type Db } from "../db/client";
import { configOf, type Config, type Env } from "../env";
import { createInvoker } from "../invoker/client";
import { MonotonicClock } from "../lib/ids";
import { consoleLogger } from "../lib/logger";
import type { NewThread } from "../plugins/contract";
import { PluginHost } from "../plugins/host";
import { PLUGINS } from "../plugins/registry";
import { Alarms } from "./alarms";
import { Broadcaster } from "./broadcaster";
import { Intake, type Accepted, type AcceptInput } from "./intake";
import { importFromD1 } from "./legacy-import";
import { FileBlocks } from "./file-blocks";
import { Mirror } from "./mirror";
import { ModelView } from "./model-view";
import { pluginContextFor } from "./plugin-context";
import { ok, refuse, type Caller, type RoomReply } from "./room-stub";
import { RunQueue } from "./run-queue";
import { SocketHub } from "./sockets";
import { StepZero } from "./step-zero";
import { RoomStore, type FileRecord, type ListQuery, type ThreadRecord } from "./store";
import { publicAttachment } from "./store/files";
import { publicThread } from "./store/thread-row";
import { ThreadWriter } from "./writer";


export type ThreadInit = Partial<Pick<NewThread, "parentThreadId" | "source">> & Pick<NewThread, "name" | "kind" | "model"> & { named?: boolean };
export type ThreadEdits = Partial<Pick<Thread, "name" | "model" | "status" | "instructions">>;

export class ThreadRoom extends DurableObject<Env> {
  private readonly config: Config;
  private readonly store: RoomStore;
  private readonly d1Usage = newUsage();
  /** Tests: `down` makes every D1 round trip of this object fail; `delayMs` slows each. */
  readonly d1Faults = { down: false, delayMs: 0 };
  private readonly db: Db;
  private readonly logger = consoleLogger("room");
  private readonly clock = new MonotonicClock();
  private readonly writer: ThreadWriter;
  private readonly alarms: Alarms;
  private readonly mirror: Mirror;
  private readonly stepZero: StepZero;
  private readonly events: Broadcaster;
  private readonly plugins: PluginHost;
  private readonly view: ModelView;
  private readonly queue: RunQueue;
  private readonly sockets: SocketHub;
  private readonly intake: Intake;
  private importing: Promise<ThreadRecord | null> | null = null;
  /** Set once the thread is being deleted: this instance takes no more work. */
  private closing = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.config = configOf(env);
    this.store = new RoomStore(ctx.storage);
    this.db = database(env, this.d1Usage, this.d1Faults);
    this.writer = new ThreadWriter(this.store, this.clock);
    this.alarms = new Alarms(ctx.storage);
    this.mirror = new Mirror(this.store.outbox, this.db, this.alarms, this.d1Usage, this.logger);
    this.stepZero = new StepZero(this.store.cache, this.db, this.config, this.logger);
    this.view = new ModelView(this.store);
    this.events = new Broadcaster(
      this.store.replay,
      () => this.thread().id,
      () => ctx.getWebSockets(),
      (frame) => void this.plugins.notify("onBroadcast", frame),
    );
    this.plugins = new PluginHost(PLUGINS, (def, settings) => pluginContextFor(def, settings, this.parts()), this.logger, this.config.hookTimeoutMs);
    const pipeline = {
      store: this.store,
      files: new FileBlocks(env.FILES, this.store.files),
      writer: this.writer,
      plugins: this.plugins,
      invoker: createInvoker(env, this.config),
      view: this.view,
      stepZero: this.stepZero,
      events: this.events,
      logger: this.logger,
      config: this.config,
    };
    this.queue = new RunQueue({ pipeline, alarms: this.alarms, d1: this.d1Usage, afterRun: (runId) => this.afterRun(runId) });
    this.sockets = new SocketHub(ctx, this.store, this.events, () => this.queue.running?.runId ?? null);
    this.intake = new Intake({
      store: this.store,
      writer: this.writer,
      events: this.events,
      queue: this.queue,
      mirror: this.mirror,
      config: this.config,
      clock: this.clock,
      waitUntil: (p) => ctx.waitUntil(p),
    });
    ctx.blockConcurrencyWhile(() => this.onStart());
  }

  private async onStart(): Promise<void> {
    this.queue.recover();
    // Work left in the queue means the last instance stopped mid-way: let the watchdog pick it up.
    if (this.store.runs.head()) await this.alarms.request(Date.now());
    if (this.store.outbox.size()) await this.alarms.request(Date.now() + 1_000);
  }

  // --- RPC from the Worker and from other threads ------------------------------------------

  async create(who: Caller, init: ThreadInit): Promise<RoomReply<Thread>> {
    if (this.store.deleted || this.store.thread.get()) return refuse("conflict", "This thread already exists");
    const now = Date.now();
    const thread = this.writer.createThread({
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
    await this.mirror.flush();
    return ok(thread);
  }

  async get(who: Caller): Promise<RoomReply<Thread>> {
    const t = await this.open(who);
    return t ? ok(publicThread(t)) : notFound();
  }

  async patch(who: Caller, edits: ThreadEdits): Promise<RoomReply<Thread>> {
    const t = await this.open(who);
    if (!t) return notFound();
    const updated = publicThread(this.writer.updateThread({ ...edits, ...(edits.name ? { named: true } : {}) }));
    this.events.emit("thread:updated", { threadId: t.id, thread: updated });
    this.ctx.waitUntil(this.mirror.flush());
    return ok(updated);
  }

  async messages(who: Caller, q: ListQuery): Promise<RoomReply<{ messages: Message[]; lastSeq: number }>> {
    const t = await this.open(who);
    if (!t) return notFound();
    // The cursor is taken before the rows: whatever happens after is replayed, not missed. During a
    // run it is the seq just before the run, so a reload mid-stream gets the whole reply so far.
    const lastSeq = this.sockets.replayCursor();
    const messages = this.store.messages.listBranch(t.headId, q);
    return messages ? ok({ messages, lastSeq }) : refuse("not_found", "No such message to page before");
  }

  /** A file uploaded to this thread (its bytes already in R2): posts may now name it. */
  async addFile(who: Caller, file: FileRecord): Promise<RoomReply<Attachment>> {
    if (!(await this.open(who))) return notFound();
    this.store.files.add(file);
    return ok(publicAttachment(file));
  }

  async file(who: Caller, id: string): Promise<RoomReply<FileRecord>> {
    if (!(await this.open(who))) return notFound();
    const file = this.store.files.get(id);
    return file ? ok(file) : refuse("not_found", "No such attachment in this thread");
  }

  /** The thread and every text message of its current branch, oldest first (an export). */
  async exportBranch(who: Caller): Promise<RoomReply<{ thread: Thread; messages: Message[] }>> {
    const t = await this.open(who);
    if (!t) return notFound();
    const messages = this.store.messages.listBranch(t.headId, { limit: 1_000_000, kinds: ["text"] }) ?? [];
    return ok({ thread: publicThread(t), messages });
  }

  /** Stores a message, queues its run, and answers at once; the same clientMessageId answers the first. */
  async accept(who: Caller, input: AcceptInput): Promise<Accepted> {
    const t = await this.open(who);
    return t ? this.intake.accept(t, input) : notFound();
  }

  /** A new version of a user message, on a branch of its own that becomes current. */
  async edit(who: Caller, messageId: string, input: AcceptInput): Promise<Accepted> {
    const t = await this.open(who);
    return t ? this.intake.edit(t, messageId, input) : notFound();
  }

  async regenerate(who: Caller, messageId: string, clientMessageId?: string): Promise<Accepted> {
    const t = await this.open(who);
    return t ? this.intake.regenerate(t, messageId, clientMessageId) : notFound();
  }

  /** Switches to the branch that holds a user message. */
  async setHead(who: Caller, messageId: string): Promise<RoomReply<Thread>> {
    const t = await this.open(who);
    return t ? this.intake.setHead(t, messageId) : notFound();
  }

  async stop(who: Caller): Promise<RoomReply<{ stopped: boolean }>> {
    return (await this.open(who)) ? ok({ stopped: this.queue.stop() }) : notFound();
  }

  /** Loads what a first post needs (the thread, the model's view, step 0's inputs) before it comes. */
  /** Whether a run is in progress, and how many messages wait (tests settle on this). */
  activity(): { running: boolean; queued: number } {
    return { running: this.queue.running !== null, queued: this.store.runs.queued() };
  }

  async prewarm(who: Caller): Promise<RoomReply<{ running: boolean; queued: number }>> {
    const t = await this.open(who);
    if (!t) return notFound();
    return ok(this.activity());
  }

  /**
   * A task was cancelled: plugins end it first (so its run, once stopped, finds it ended and does not
   * iterate again), then its waiting iterations go and its running one is stopped.
   */
  async cancelTask(who: Caller, taskId: string): Promise<RoomReply<null>> {
    if (!(await this.open(who))) return notFound();
    await this.plugins.notify("onTaskCancel", taskId);
    this.queue.cancelTask(taskId);
    return ok(null);
  }

  /** Broadcasts on this thread for another thread's object (task events, notifications). */
  async broadcastEvent<K extends EventName>(who: Caller, event: K, data: EventMap[K]): Promise<RoomReply<null>> {
    if (!(await this.open(who))) return notFound();
    this.events.emit(event, data);
    return ok(null);
  }

  /** A config or context file changed in D1: the next run reads step 0's inputs again. */
  async invalidate(): Promise<void> {
    this.stepZero.invalidate();
  }

  /** The thread was deleted: stop, let the run and a flush unwind, disconnect, forget everything. */
  async destroy(who: Caller): Promise<RoomReply<null>> {
    if (!(await this.open(who))) return notFound();
    this.closing = true;
    await this.queue.close();
    await this.mirror.settled();
    await this.plugins.stop();
    this.sockets.closeAll("thread deleted");
    await this.store.destroy();
    this.alarms.cleared();
    this.view.forget();
    return ok(null);
  }

  // --- WebSockets (hibernatable), alarm -------------------------------------------------------

  async fetch(request: Request): Promise<Response> {
    const who = { threadId: request.headers.get("x-thread-id") ?? "", userId: request.headers.get("x-user-id") ?? "" };
    if (!(await this.open(who))) return Response.json({ error: { code: "not_found", message: "Thread not found" } }, { status: 404 });
    return this.sockets.connect(request, who.userId);
  }

  async webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer): Promise<void> {
    if (this.sockets.onMessage(ws, raw) === "stop") this.queue.stop();
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
    await this.queue.heartbeat();
    await this.mirror.onAlarm();
  }

  // --- inside ----------------------------------------------------------------------------------

  /** The thread, loaded (from D1 once, for a thread older than this store), if `who` may reach it. */
  private async open(who: Caller): Promise<ThreadRecord | null> {
    if (this.closing) return null;
    let t = this.store.thread.get();
    if (!t && !this.store.deleted && who.threadId) {
      this.importing ??= importFromD1(this.db, this.store, this.writer, who.threadId).finally(() => (this.importing = null));
      t = await this.importing;
    }
    return t && t.id === who.threadId && t.ownerId === who.userId ? t : null;
  }

  private thread(): ThreadRecord {
    const t = this.store.thread.get();
    if (!t) throw new Error("This object has no thread");
    return t;
  }

  private afterRun(runId: string): void {
    const owner = this.store.thread.get()?.ownerId;
    if (!owner || this.closing) return;
    const before = this.d1Usage.roundTrips;
    this.ctx.waitUntil(
      this.mirror.flush(this.stepZero.revalidation(owner)).then(() => {
        this.logger.info("run mirrored", { runId, d1RoundTrips: this.d1Usage.roundTrips - before });
      }),
    );
  }

  private parts() {
    return {
      env: this.env,
      db: this.db,
      store: this.store,
      writer: this.writer,
      clock: this.clock,
      plugins: () => this.plugins,
      contextFiles: () => this.stepZero.current?.contextFiles ?? [],
      sockets: () => this.ctx.getWebSockets(),
      accept: async (input: AcceptInput) => {
        const reply = this.intake.accept(this.thread(), input);
        if (!reply.ok) throw new Error(reply.error.message);
        return reply.value.message;
      },
      emit: <K extends EventName>(event: K, data: EventMap[K]) => this.events.emit(event, data),
    };
  }
}

const notFound = () => refuse("not_found", "Thread not found");
