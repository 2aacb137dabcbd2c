// One open thread kept in step with the server: its newest messages first, then its socket, every
// event folded into the chat state once. The hook (useThreadChat) gives it the HTTP read, the socket
// (lib/threadSocket.ts) and the reducer's dispatch; the tests give it fakes.
//
// Ordering: load the messages first (the answer carries lastSeq L), then connect with since=L, so that
// nothing in between is missed. Every (re)connect asks for the events after the last one applied;
// events whose seq <= that are dropped, and the reducer drops chat:messages it already holds (by id).
// A `replay_unavailable` error frame means events were lost: the messages are read again.
//
// Mid-run reload: a page loaded during a run holds the messages at L, but that run's earlier events
// have seq <= L. When `ready` names a running run whose start this page has not seen, the sync
// reconnects once with since=0 and applies, from the events up to L, only those of that run (a
// one-run "backfill"), then carries on normally. If the server no longer has them, the bubble simply
// starts from what it does have.
//
// A message sent on the socket (deliver) is answered on it by `accepted` or `error`; while it waits,
// a close of the socket means the answer will not come (socketSends.ts).

import { MAX_BODY_BYTES, MESSAGE_PAGE, type ClientFrame, type EventFrame, type ResponseOf, type SendFrame, type ServerFrame } from "@protocol";
import { errorText } from "../api";
import { frameRunId, type ChatAction } from "./chatState";
import { NotDelivered, PendingSends, type SendAnswer } from "./socketSends";

export type ConnectionState = "connecting" | "open" | "closed";

export const PING_EVERY_MS = 25_000;
/** A socket that heard nothing for this long may look open and be dead (a sleeping laptop, a lost route). */
export const SILENCE_LIMIT_MS = 60_000;

/** What the socket tells the sync. */
export interface SocketEvents {
  open(): void;
  close(): void;
  frame(frame: ServerFrame): void;
}

/** A socket that reconnects by itself, asking `since` at every attempt. */
export interface SyncSocket {
  readonly readyState: number;
  readonly OPEN: number;
  send(data: string): void;
  reconnect(): void;
  close(code?: number, reason?: string): void;
}

export interface ThreadSyncIO {
  /** The newest page of the thread's current branch, and the seq it was read at. */
  readMessages(signal: AbortSignal): Promise<ResponseOf<"GET /api/threads/:id/messages">>;
  openSocket(since: () => number, events: SocketEvents, signal: AbortSignal): SyncSocket;
  /** Into the chat state (chatReducer). */
  dispatch(action: ChatAction): void;
  /** A new event's effects beyond the chat (the outbox, the query cache). */
  onEvent(frame: EventFrame): void;
  onConnection(state: ConnectionState): void;
}

interface Backfill {
  runId: string;
  /** Events with seq <= upTo were covered by the messages read; only this run's are applied. */
  upTo: number;
  /** The highest seq <= upTo seen so far during the backfill (where a reconnect resumes). */
  cursor: number;
}

export class ThreadSync {
  readonly #io: ThreadSyncIO;
  readonly #abort = new AbortController();
  #disposed = false;
  #socket: SyncSocket | null = null;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #lastFrameAt = Date.now();
  /** The seq of the last event applied. */
  #lastSeen = 0;
  readonly #startedRuns = new Set<string>();
  #backfill: Backfill | null = null;
  /** Set until the backfill connection's `ready` arrives (its lastSeq is not compared then). */
  #backfillPending = false;
  #backfillTried = false;
  /** After `ready` names a run: look for its start in the replay up to `until`. */
  #startCheck: { runId: string; until: number; floor: number } | null = null;
  readonly #sends = new PendingSends();

  constructor(io: ThreadSyncIO) {
    this.#io = io;
  }

  /** Loads the newest messages, then connects from the seq they were read at. */
  async start(): Promise<void> {
    this.#heartbeat = setInterval(() => this.#beat(), PING_EVERY_MS);
    this.#io.dispatch({ type: "loading" });
    const page = await this.#io.readMessages(this.#abort.signal).catch((err: unknown) => {
      if (!this.#disposed) this.#io.dispatch({ type: "loadFailed", error: errorText(err) });
      return null;
    });
    if (!page || this.#disposed) return;
    this.#lastSeen = page.lastSeq;
    this.#io.dispatch({ type: "loaded", messages: page.messages, hasOlder: page.messages.length >= MESSAGE_PAGE });
    // While replaying a run joined mid-way, a reconnect resumes after the last replayed event.
    const since = () => (this.#backfill ? this.#backfill.cursor : this.#lastSeen);
    this.#socket = this.#io.openSocket(
      since,
      {
        open: () => {
          if (!this.#disposed) this.#io.onConnection("open");
        },
        close: () => {
          this.#sends.dropAll();
          if (!this.#disposed) this.#io.onConnection("closed");
        },
        frame: (frame) => {
          if (!this.#disposed) this.#receive(frame);
        },
      },
      this.#abort.signal,
    );
  }

  /** Sends now if the socket is open (nothing is queued for later). */
  send(frame: Exclude<ClientFrame, SendFrame>): void {
    this.#socket?.send(JSON.stringify(frame));
  }

  /**
   * A message over the open socket: resolves on its `accepted`; rejects with POST's ApiError on its
   * `error`, or with NotDelivered when the socket is not open, closes or does not answer in time.
   */
  deliver(frame: SendFrame): Promise<SendAnswer> {
    const socket = this.#socket;
    if (this.#disposed || !socket || socket.readyState !== socket.OPEN) return Promise.reject(new NotDelivered("socket not open"));
    const data = JSON.stringify(frame);
    // The server refuses a frame this long without reading its clientMessageId: no answer would name it.
    if (data.length > MAX_BODY_BYTES) return Promise.reject(new NotDelivered("too long for a frame"));
    const answer = this.#sends.wait(frame.clientMessageId);
    socket.send(data);
    return answer;
  }

  /** The thread is left: its socket closes, and nothing still on its way is applied. */
  dispose(): void {
    this.#disposed = true;
    this.#sends.dropAll();
    this.#abort.abort();
    clearInterval(this.#heartbeat);
    this.#socket?.close(1000, "leaving thread");
  }

  #receive(frame: ServerFrame): void {
    this.#lastFrameAt = Date.now();
    if ("seq" in frame) this.#applyEvent(frame);
    else if (frame.event === "ready") this.#ready(frame);
    else if (frame.event === "accepted") this.#sends.accepted(frame.data);
    else if (frame.event === "error" && frame.data.clientMessageId !== undefined) this.#sends.refused(frame.data);
    else if (frame.event === "error" && frame.data.code === "replay_unavailable" && !this.#backfill) void this.#reload();
  }

  #applyEvent(frame: EventFrame): void {
    const seq = frame.seq;
    const backfill = this.#backfill;
    if (backfill && seq <= backfill.upTo) {
      if (seq > backfill.cursor) {
        backfill.cursor = seq;
        if (frameRunId(frame) === backfill.runId) this.#io.dispatch({ type: "frame", frame });
      }
      return;
    }
    if (seq <= this.#lastSeen) return;
    this.#lastSeen = seq;
    this.#backfill = null;
    if (frame.event === "pipeline:start") this.#startedRuns.add(frame.data.runId);
    this.#io.dispatch({ type: "frame", frame });
    this.#io.onEvent(frame);
    const check = this.#startCheck;
    if (check) {
      if (this.#startedRuns.has(check.runId)) this.#startCheck = null;
      else if (seq >= check.until) this.#startBackfill(check.runId, check.floor);
    }
  }

  #ready(frame: Extract<ServerFrame, { event: "ready" }>): void {
    const { lastSeq, running } = frame.data;
    if (this.#backfillPending) {
      this.#backfillPending = false;
    } else if (lastSeq < this.#lastSeen) {
      // The thread's sequence went back (its state was reset): start over from the server's.
      this.#lastSeen = lastSeq;
      void this.#reload();
    }
    this.#io.dispatch({ type: "frame", frame });
    if (running && !this.#startedRuns.has(running) && !this.#backfillTried && !this.#backfill) {
      if (lastSeq <= this.#lastSeen) this.#startBackfill(running, this.#lastSeen);
      else this.#startCheck = { runId: running, until: lastSeq, floor: this.#lastSeen };
    }
  }

  #startBackfill(runId: string, floor: number): void {
    this.#backfillTried = true;
    this.#startCheck = null;
    this.#lastSeen = floor;
    this.#backfill = { runId, upTo: floor, cursor: 0 };
    this.#backfillPending = true;
    this.#io.dispatch({ type: "resetRun", runId });
    this.#socket?.reconnect();
  }

  async #reload(): Promise<void> {
    try {
      const page = await this.#io.readMessages(this.#abort.signal);
      if (!this.#disposed) this.#io.dispatch({ type: "reloaded", messages: page.messages });
    } catch {
      /* the next reconnect or event will do */
    }
  }

  /** Pings now and then; reconnects a socket that has gone silent. */
  #beat(): void {
    const socket = this.#socket;
    if (!socket || socket.readyState !== socket.OPEN) return;
    if (Date.now() - this.#lastFrameAt > SILENCE_LIMIT_MS) {
      this.#lastFrameAt = Date.now();
      socket.reconnect();
      return;
    }
    this.send({ type: "ping" });
  }
}
