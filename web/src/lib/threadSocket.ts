// A thread's socket as the app opens it: partysocket's ReconnectingWebSocket, reconnecting with
// backoff, each attempt with a fresh one-use ticket and `since` as it is then (socketTickets.ts).

import type { ServerFrame } from "@protocol";
import ReconnectingWebSocket from "partysocket/ws";
import { ticketedSocketUrls } from "./socketTickets";
import type { SocketEvents, SyncSocket } from "./threadSync";

export function openThreadSocket(threadId: string, since: () => number, events: SocketEvents, signal: AbortSignal): SyncSocket {
  const urls = ticketedSocketUrls(threadId, since, signal);
  const socket = new ReconnectingWebSocket(() => urls.next(), undefined, {
    minReconnectionDelay: 500 + Math.random() * 500,
    maxReconnectionDelay: 15_000,
    reconnectionDelayGrowFactor: 1.6,
    connectionTimeout: 6_000,
    maxEnqueuedMessages: 0,
  });
  socket.addEventListener("open", () => events.open());
  socket.addEventListener("close", (ev: CloseEvent) => {
    urls.closed(ev.code);
    events.close();
  });
  socket.addEventListener("message", (ev: MessageEvent) => {
    if (typeof ev.data !== "string") return;
    let frame: ServerFrame;
    try {
      frame = JSON.parse(ev.data) as ServerFrame;
    } catch {
      return;
    }
    if (frame && typeof frame.event === "string") events.frame(frame);
  });
  return socket;
}
