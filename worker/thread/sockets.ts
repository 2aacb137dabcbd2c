// The thread's hibernatable WebSockets: connect (ready, replay, then live), the frames clients send,
// and close. Per-socket state lives in the socket's attachment, never in memory only.
import { CREDENTIAL_EXPIRED } from "../../protocol";
import type { Broadcaster } from "./broadcaster";
import type { Accepted, Intake } from "./intake";
import type { PostInput } from "./post-input";
import { refuse } from "./room-reply";
import type { RunQueue } from "./run/queue";
import { frameFor, parseClientFrame } from "./socket-frames";
import type { RoomStore } from "./store";

export interface SocketAttachment {
  userId: string;
  connectedAt: number;
  /** When the credential it was opened with stops being valid (null: never); it closes then. */
  expiresAt: number | null;
}

export class SocketHub {
  constructor(
    private readonly ctx: DurableObjectState,
    private readonly store: RoomStore,
    private readonly events: Broadcaster,
    private readonly queue: Pick<RunQueue, "runningId" | "stop">,
    private readonly intake: Pick<Intake, "post">,
  ) {}

  /**
   * Who opens a socket: the user the Worker authenticated (x-user-id) or whom a one-use ticket names
   * (x-ws-ticket); the Worker sets both headers itself. null: a ticket unknown, used or expired.
   */
  credentialOf(request: Request): { threadId: string; userId: string; expiresAt: number | null } | null {
    const threadId = request.headers.get("x-thread-id") ?? "";
    const ticket = request.headers.get("x-ws-ticket");
    if (ticket) {
      const redeemed = this.store.tickets.redeem(ticket);
      return redeemed && { threadId, userId: redeemed.userId, expiresAt: redeemed.credentialExpiresAt };
    }
    const header = request.headers.get("x-credential-expires-at");
    return { threadId, userId: request.headers.get("x-user-id") ?? "", expiresAt: header ? Number(header) : null };
  }

  connect(request: Request, userId: string, expiresAt: number | null): Response {
    const params = new URL(request.url).searchParams;
    const since = params.has("since") ? Number(params.get("since")) : null;
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ userId, connectedAt: Date.now(), expiresAt } satisfies SocketAttachment);
    this.onConnect(server, since !== null && Number.isFinite(since) ? since : null);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Synchronous from `ready` to the last replayed frame: no live event can fall in between. */
  private onConnect(ws: WebSocket, since: number | null): void {
    const lastSeq = this.events.lastSeq;
    ws.send(frameFor("ready", { lastSeq, running: this.queue.runningId }));
    if (since === null || since >= lastSeq) return;
    const oldest = this.store.replay.oldestSeq();
    if (oldest !== null && since < oldest - 1) {
      ws.send(frameFor("error", { code: "replay_unavailable", message: "Events before this point are gone; reload messages" }));
    }
    for (const frame of this.store.replay.since(since)) ws.send(frame);
  }

  /**
   * A client's frame: a ping is answered, a bad frame reported, a stop carried out; a send is posted
   * as the socket's user and answered on this socket only.
   */
  async onMessage(ws: WebSocket, raw: string | ArrayBuffer): Promise<void> {
    const frame = parseClientFrame(raw);
    if (frame.type === "ping") ws.send(frameFor("pong", {}));
    else if (frame.type === "stop") this.queue.stop();
    else if (frame.type === "invalid") {
      const { code, error: message, clientMessageId } = frame;
      ws.send(frameFor("error", { code, message, ...(clientMessageId ? { clientMessageId } : {}) }));
    } else {
      const { type: _, ...input } = frame;
      this.answerSend(ws, frame.clientMessageId, await this.post(ws, input));
    }
  }

  /** A send frame, posted as the socket's user: the path a POST takes from its checks on. */
  private post(ws: WebSocket, input: PostInput): Promise<Accepted> {
    const userId = (ws.deserializeAttachment() as SocketAttachment | null)?.userId ?? "";
    const t = this.store.thread.get();
    // The socket was opened for the owner; a thread deleted meanwhile has no row.
    if (!t || t.ownerId !== userId) return Promise.resolve(refuse("not_found", "Thread not found"));
    return this.intake.post(t, userId, input);
  }

  /** A send frame's answer: `accepted`, or `error` with the code POST would answer. */
  private answerSend(ws: WebSocket, clientMessageId: string, reply: Accepted): void {
    const frame = reply.ok
      ? frameFor("accepted", { clientMessageId, ...reply.value })
      : frameFor("error", { code: reply.error.code, message: reply.error.message, clientMessageId, ...(reply.error.retryAfterSec !== undefined ? { retryAfter: reply.error.retryAfterSec } : {}) });
    try {
      ws.send(frame);
    } catch {
      // The socket closed meanwhile: its client retries by POST with the same clientMessageId.
    }
  }

  onClose(ws: WebSocket): void {
    // Hibernated sockets do not answer a Close on their own; 1005 and 1006 may not be sent back.
    try {
      ws.close(1000, "closing");
    } catch {}
  }

  /** Closes the sockets whose credential has expired; answers when the next one will (null: none). */
  closeExpired(now = Date.now()): number | null {
    let next: number | null = null;
    for (const ws of this.ctx.getWebSockets()) {
      const expiresAt = (ws.deserializeAttachment() as SocketAttachment | null)?.expiresAt ?? null;
      if (expiresAt === null) continue;
      if (expiresAt <= now) {
        try {
          ws.close(CREDENTIAL_EXPIRED, "credential expired");
        } catch {}
      } else next = next === null ? expiresAt : Math.min(next, expiresAt);
    }
    return next;
  }

  closeAll(reason: string): void {
    for (const ws of this.ctx.getWebSockets()) {
      try {
        ws.close(1000, reason);
      } catch {}
    }
  }

  /**
   * The seq a client should replay from after reading messages: during a run, the seq just before
   * it started, so a reload mid-stream gets the whole reply so far.
   */
  replayCursor(): number {
    const running = this.queue.runningId;
    const first = running ? this.store.runs.firstSeqOf(running) : null;
    return first !== null ? first - 1 : this.events.lastSeq;
  }
}
