// ThreadRoom: one Durable Object per thread, the single writer for it. Lifecycle:
//   onStart     (constructor) open its SQLite, number events from where they were, plan recovery
//   accept      store a message (D1), queue it, broadcast it, start the queue
//   onConnect   (fetch) a hibernatable WebSocket: `ready`, then replay, then live events
//   onMessage   (webSocketMessage) ping / stop frames
//   onClose     (webSocketClose)
//   onAlarm     (alarm) the run queue's watchdog (run-queue.ts)
import { DurableObject } from "cloudflare:workers";
import { database, meteredD1, type D1Usage, type Db } from "../db/client";
import { messages, threads } from "../db/schema";
import type { Message, Thread } from "../db/shapes";
import { numberVar, type Env } from "../env";
import { createInvoker, runTimeoutMs } from "../invoker/client";
import type { Invoker } from "../invoker/invoke";
import { RunError } from "../invoker/errors";
import { MonotonicClock, newId } from "../lib/ids";
import { consoleLogger } from "../lib/logger";
import type { BroadcastFrame } from "../plugins/contract";
import { PLUGINS, PluginHost } from "../plugins/registry";
import { runNotify } from "../plugins/runners";
import { eq } from "drizzle-orm";
import { Broadcaster } from "./broadcaster";
import type { PipelineDeps } from "./pipeline";
import { RunQueue } from "./run-queue";
import { ResidentConversation } from "./resident-conversation";
import { RoomStore } from "./room-store";
import { pluginContextFor, type RoomHost } from "./plugin-context";
import { frameFor, parseClientFrame } from "./socket-frames";

export interface AcceptInput {
  threadId: string;
  content: string;
  clientMessageId?: string;
  role?: "user" | "system";
  source?: string;
  metadata?: Record<string, unknown>;
  taskId?: string;
  /** false: store and broadcast only (a notification), no pipeline run. */
  run?: boolean;
}

/** Accepted (or a duplicate of an accepted one), or refused because the thread's queue is full. */
export type AcceptResult = { ok: true; message: Message; duplicate: boolean } | { ok: false; queued: number };

interface SocketAttachment {
  threadId: string;
  userId: string;
  connectedAt: number;
}

export class ThreadRoom extends DurableObject<Env> {
  private store: RoomStore;
  private readonly db: Db;
  private readonly d1Usage: D1Usage = { statements: 0, roundTrips: 0 };
  private readonly logger = consoleLogger("room");
  private readonly clock = new MonotonicClock();
  private readonly plugins: PluginHost;
  private broadcaster: Broadcaster;
  private conversation: ResidentConversation;
  private readonly queue: RunQueue;
  private accepting = new Map<string, Promise<Message>>();
  private invoker: Invoker | null = null;
  /** Set once the thread is deleted: this instance takes no more work. */
  private destroyed = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = database(meteredD1(env.DB, this.d1Usage));
    this.store = new RoomStore(ctx.storage.sql);
    this.broadcaster = this.makeBroadcaster();
    this.conversation = new ResidentConversation(this.store);
    const room = this;
    const host: RoomHost = {
      env,
      db: this.db,
      logger: this.logger,
      get plugins() {
        return room.plugins;
      },
      threadId: () => this.store.getMeta("threadId"),
      sockets: () => this.ctx.getWebSockets(),
      accept: (input) => this.accept(input),
      emit: (event, data) => this.broadcaster.emit(event, data),
      now: () => this.clock.now(),
    };
    this.plugins = new PluginHost(PLUGINS, (def, settings) => pluginContextFor(def, settings, host), this.logger, numberVar(env.HOOK_TIMEOUT_MS, 10_000));
    this.queue = new RunQueue({
      store: () => this.store,
      broadcaster: () => this.broadcaster,
      pipeline: () => this.pipelineDeps(),
      setAlarm: (at) => ctx.storage.setAlarm(at),
      logger: this.logger,
      d1Usage: this.d1Usage,
      timeoutMs: runTimeoutMs(env),
    });
    ctx.blockConcurrencyWhile(() => this.onStart());
  }

  private async onStart(): Promise<void> {
    // Work left in the queue means the last instance stopped mid-way: let the watchdog pick it up.
    if (this.store.head()) await this.ctx.storage.setAlarm(Date.now());
  }

  private get threadId(): string {
    const id = this.store.getMeta("threadId");
    if (!id) throw new RunError("internal", "This object has no thread yet", false);
    return id;
  }

  private bind(threadId: string): void {
    if (this.store.getMeta("threadId") !== threadId) this.store.setMeta("threadId", threadId);
  }

  // --- RPC from the Worker and from other threads ------------------------------------------

  /** Stores a message, queues its run, and answers at once; the same clientMessageId answers the first. */
  async accept(input: AcceptInput): Promise<AcceptResult> {
    if (this.destroyed) throw new RunError("internal", "This thread was deleted", false);
    this.bind(input.threadId);
    const cid = input.clientMessageId;
    if (cid) {
      const known = this.store.messageForClientId(cid);
      if (known) return { ok: true, message: known, duplicate: true };
      const inFlight = this.accepting.get(cid);
      if (inFlight) return { ok: true, message: await inFlight, duplicate: true };
    }
    const queued = this.store.queuedCount();
    if (input.run !== false && queued >= numberVar(this.env.MAX_QUEUED_MESSAGES, 20)) return { ok: false, queued };
    const stored = this.storeMessage(input);
    if (cid) this.accepting.set(cid, stored);
    try {
      const message = await stored;
      if (cid) this.store.rememberClientId(cid, message);
      this.broadcaster.emit("chat:message", { threadId: input.threadId, message });
      if (input.run !== false) void this.queue.pump();
      return { ok: true, message, duplicate: false };
    } finally {
      if (cid) this.accepting.delete(cid);
    }
  }

  /** A task was cancelled: its waiting iterations go, its running one is stopped. */
  async cancelTask(taskId: string): Promise<void> {
    this.queue.cancelTask(taskId);
  }

  async stop(): Promise<{ stopped: boolean }> {
    return { stopped: this.queue.stop() };
  }

  /**
   * The seq a client should replay from after reading messages: during a run, the seq just before
   * it started, so a reload mid-stream gets the whole reply so far.
   */
  async replayCursor(): Promise<number> {
    const running = this.queue.running;
    const first = running ? this.store.firstSeqOf(running.runId) : null;
    return first !== null ? first - 1 : this.broadcaster.lastSeq;
  }

  async threadChanged(thread: Thread): Promise<void> {
    this.bind(thread.id);
    this.broadcaster.emit("thread:updated", { threadId: thread.id, thread });
  }

  /** Broadcasts on this thread for another thread's object (task events, notifications). */
  async broadcastEvent(threadId: string, event: string, data: Record<string, unknown>): Promise<void> {
    this.bind(threadId);
    this.broadcaster.emit(event, data);
  }

  async prewarm(threadId: string): Promise<{ running: boolean; queued: number }> {
    this.bind(threadId);
    return { running: this.queue.running !== null, queued: this.store.queuedCount() };
  }

  /** The thread was deleted: stop, let the run unwind, disconnect, forget everything. */
  async destroy(): Promise<void> {
    this.destroyed = true;
    await this.queue.close();
    await this.plugins.stop();
    for (const ws of this.ctx.getWebSockets()) {
      try {
        ws.close(1000, "thread deleted");
      } catch {}
    }
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.store = new RoomStore(this.ctx.storage.sql);
    this.conversation = new ResidentConversation(this.store);
    this.broadcaster = this.makeBroadcaster();
  }

  // --- WebSockets (hibernatable) -----------------------------------------------------------

  async fetch(request: Request): Promise<Response> {
    const threadId = request.headers.get("x-thread-id");
    const userId = request.headers.get("x-user-id");
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket" || !threadId || !userId) {
      return new Response("expected a websocket upgrade", { status: 400 });
    }
    this.bind(threadId);
    const since = Number(new URL(request.url).searchParams.get("since"));
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ threadId, userId, connectedAt: Date.now() } satisfies SocketAttachment);
    this.onConnect(server, Number.isFinite(since) && new URL(request.url).searchParams.has("since") ? since : null);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Synchronous from `ready` to the last replayed frame: no live event can fall in between. */
  private onConnect(ws: WebSocket, since: number | null): void {
    const lastSeq = this.broadcaster.lastSeq;
    ws.send(frameFor("ready", { lastSeq, running: this.queue.running?.runId ?? null }));
    if (since === null || since >= lastSeq) return;
    const oldest = this.store.oldestSeq();
    if (oldest !== null && since < oldest - 1) {
      ws.send(frameFor("error", { code: "replay_unavailable", message: "Events before this point are gone; reload messages" }));
    }
    for (const frame of this.store.eventsSince(since)) ws.send(frame);
  }

  async webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer): Promise<void> {
    const frame = parseClientFrame(raw);
    if (frame.type === "ping") ws.send(frameFor("pong", {}));
    else if (frame.type === "stop") await this.stop();
    else ws.send(frameFor("error", { code: "invalid_frame", message: frame.error }));
  }

  async webSocketClose(ws: WebSocket): Promise<void> {
    try {
      ws.close(1000, "closing");
    } catch {}
  }

  async webSocketError(ws: WebSocket): Promise<void> {
    await this.webSocketClose(ws);
  }

  async alarm(): Promise<void> {
    if (!this.destroyed) await this.queue.heartbeat();
  }

  // --- wiring ------------------------------------------------------------------------------

  private async storeMessage(input: AcceptInput): Promise<Message> {
    const now = this.clock.now();
    const message: Message = {
      id: newId("msg", now),
      threadId: input.threadId,
      role: input.role ?? "user",
      kind: "text",
      source: input.source ?? "web",
      content: input.content,
      model: null,
      metadata: input.metadata ?? {},
      clientMessageId: input.clientMessageId ?? null,
      createdAt: now,
    };
    await this.db.batch([
      this.db.insert(messages).values(message),
      this.db.update(threads).set({ lastActivity: now, updatedAt: now }).where(eq(threads.id, input.threadId)),
    ]);
    // Queued only once stored: a message that is not in D1 is not acknowledged, so never run.
    if (input.run !== false) this.store.enqueue(message, input.taskId ?? null);
    return message;
  }

  private makeBroadcaster(): Broadcaster {
    return new Broadcaster(
      this.store,
      () => this.threadId,
      (frame: BroadcastFrame) => {
        // Delivery belongs to the onBroadcast plugins (the web plugin writes to the sockets).
        const pending = runNotify(this.plugins.entries("onBroadcast"), "onBroadcast", [frame], this.logger);
        if (pending) this.ctx.waitUntil(pending);
      },
    );
  }

  private pipelineDeps(): PipelineDeps {
    return {
      db: this.db,
      plugins: this.plugins,
      invoker: (this.invoker ??= createInvoker(this.env)),
      conversation: this.conversation,
      logger: this.logger,
      clock: this.clock,
      broadcast: (event, data) => this.broadcaster.emit(event, data),
      tokenBudget: numberVar(this.env.CONTEXT_TOKEN_BUDGET, 100_000),
      streamFlushMs: numberVar(this.env.STREAM_FLUSH_MS, 30),
    };
  }
}

