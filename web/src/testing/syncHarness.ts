// A ThreadSync on fakes for the unit tests: the server's end of its socket driven by the test, the
// messages' reads answered from a list, every action folded into a chat state.

import type { EventFrame, ResponseOf, ServerFrame, SocketFrameMap } from "@protocol";
import { vi } from "vitest";
import { chatReducer, initialChatState, type ChatAction } from "../lib/chatState";
import { ThreadSync, type ConnectionState, type SocketEvents, type SyncSocket } from "../lib/threadSync";

/** The server's end of the thread's socket, driven by the test; each (re)connect reads `since`. */
export class FakeSocket implements SyncSocket {
  readonly OPEN = 1;
  readyState = 0;
  /** `since` at each connect. */
  readonly sinces: number[] = [];
  readonly sent: unknown[] = [];
  reconnects = 0;
  closedWith: number | undefined;
  readonly #since: () => number;
  readonly #events: SocketEvents;

  constructor(since: () => number, events: SocketEvents) {
    this.#since = since;
    this.#events = events;
  }

  connect(ready: SocketFrameMap["ready"]): void {
    this.sinces.push(this.#since());
    this.readyState = this.OPEN;
    this.#events.open();
    this.deliver({ event: "ready", data: ready, timestamp: 0 });
  }

  deliver(...frames: ServerFrame[]): void {
    for (const f of frames) this.#events.frame(f);
  }

  drop(): void {
    this.readyState = 3;
    this.#events.close();
  }

  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }

  reconnect(): void {
    this.reconnects++;
    this.readyState = 0;
  }

  close(code?: number): void {
    this.closedWith = code;
    this.readyState = 3;
  }
}

export type MessagesPage = ResponseOf<"GET /api/threads/:id/messages">;

/** A ThreadSync on fakes, started: `pages` are the answers to its reads of the messages, in turn. */
export async function startSync(...pages: MessagesPage[]) {
  let state = initialChatState("thr_1");
  const events: EventFrame[] = [];
  const connection: ConnectionState[] = [];
  const reads = vi.fn(async () => pages.shift() ?? { messages: [], lastSeq: 0 });
  const dispatch = (action: ChatAction) => {
    state = chatReducer(state, action);
  };
  let socket: FakeSocket | undefined;
  const sync = new ThreadSync({
    readMessages: reads,
    openSocket: (since, on) => (socket = new FakeSocket(since, on)),
    dispatch,
    onEvent: (f) => events.push(f),
    onConnection: (c) => connection.push(c),
  });
  await sync.start();
  if (!socket) throw new Error("no socket opened");
  return { sync, socket, state: () => state, dispatch, events, connection, reads };
}
