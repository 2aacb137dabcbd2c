// One open thread: loads its messages, owns its WebSocket (partysocket's ReconnectingWebSocket,
// reconnecting with backoff and `?since=<last seq seen>`, each attempt with a fresh one-use ticket:
// lib/socketTickets.ts), and folds every event into ChatState.
//
// Ordering: load messages first (the answer carries lastSeq L), then connect with since=L, so that
// nothing in between is missed. Events whose seq <= last seen are dropped; chat:messages already
// held (by id) are dropped by the reducer. A `replay_unavailable` error frame means events were
// lost: reload the messages.
//
// Mid-run reload: a page loaded during a run holds the messages at L, but that run's earlier stream
// events have seq <= L. When `ready` names a running run whose start this page has not seen, the hook
// reconnects once with since=0 and applies, from the events up to L, only those of that run (a
// one-run "backfill"), then carries on normally. If the server no longer has them, the bubble simply
// starts from what it does have.

import ReconnectingWebSocket from "partysocket/ws";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { errorText, request } from "../api";
import { chatReducer, frameRunId, initialChatState, MESSAGE_PAGE as PAGE } from "../lib/chatState";
import { prewarmThread } from "../lib/prewarm";
import { ticketedSocketUrls } from "../lib/socketTickets";
import { cacheThreadEvent } from "../queries/threadEvents";
import { useSession } from "../session/SessionGate";
import type { ClientFrame, EventFrame, Message, ServerFrame } from "@protocol";

const listMessages = (threadId: string, before?: string, signal?: AbortSignal) =>
  request("GET /api/threads/:id/messages", { params: { id: threadId }, query: { limit: PAGE, before }, signal });

export type ConnectionState = "connecting" | "open" | "closed";

const PING_EVERY_MS = 25_000;
const SILENCE_LIMIT_MS = 60_000;

interface Backfill {
  runId: string;
  /** Events with seq <= upTo were covered by the messages read; only this run's are applied. */
  upTo: number;
  /** The highest seq <= upTo seen so far during the backfill (where a reconnect resumes). */
  cursor: number;
}

/** One open thread's chat. ChatView is keyed by thread, so each thread starts from a fresh state. */
export function useThreadChat(threadId: string | null) {
  const [state, dispatch] = useReducer(chatReducer, threadId, initialChatState);
  const [connection, setConnection] = useState<ConnectionState>("connecting");
  const socketRef = useRef<ReconnectingWebSocket | null>(null);
  const lastSeenRef = useRef(0);
  const [loadKey, setLoadKey] = useState(0);
  const queryClient = useQueryClient();
  const { outbox } = useSession();

  useEffect(() => {
    setConnection("connecting");
    if (!threadId) return;
    // The first message to a cold thread is answered sooner if its object is up by then.
    prewarmThread(threadId);

    let disposed = false;
    const abort = new AbortController();
    let socket: ReconnectingWebSocket | null = null;
    let backfill: Backfill | null = null;
    /** Set until the backfill connection's `ready` arrives (its lastSeq is not compared then). */
    let backfillPending = false;
    let backfillTried = false;
    /** After `ready` names a run: look for its start in the replay up to `until`. */
    let startCheck: { runId: string; until: number; floor: number } | null = null;
    const startedRuns = new Set<string>();
    let lastFrameAt = Date.now();

    const reloadMessages = async () => {
      try {
        const page = await listMessages(threadId, undefined, abort.signal);
        if (!disposed) dispatch({ type: "reloaded", messages: page.messages });
      } catch {
        /* the next reconnect or event will do */
      }
    };

    const startBackfill = (runId: string, floor: number) => {
      backfillTried = true;
      startCheck = null;
      lastSeenRef.current = floor;
      backfill = { runId, upTo: floor, cursor: 0 };
      backfillPending = true;
      dispatch({ type: "resetRun", runId });
      socket?.reconnect();
    };

    const sideEffects = (frame: EventFrame) => {
      if (frame.event === "chat:message") outbox.reconcile(frame.data.message);
      cacheThreadEvent(queryClient, frame);
    };

    const handleFrame = (frame: ServerFrame) => {
      lastFrameAt = Date.now();
      if ("seq" in frame) {
        const seq = frame.seq;
        if (backfill && seq <= backfill.upTo) {
          if (seq > backfill.cursor) {
            backfill.cursor = seq;
            if (frameRunId(frame) === backfill.runId) dispatch({ type: "frame", frame });
          }
          return;
        }
        if (seq <= lastSeenRef.current) return;
        lastSeenRef.current = seq;
        backfill = null;
        if (frame.event === "pipeline:start") startedRuns.add(frame.data.runId);
        dispatch({ type: "frame", frame });
        sideEffects(frame);
        if (startCheck) {
          if (startedRuns.has(startCheck.runId)) startCheck = null;
          else if (seq >= startCheck.until) startBackfill(startCheck.runId, startCheck.floor);
        }
        return;
      }

      switch (frame.event) {
        case "ready": {
          const { lastSeq, running } = frame.data;
          if (backfillPending) {
            backfillPending = false;
          } else if (lastSeq < lastSeenRef.current) {
            // The thread's sequence went back (its state was reset): start over from the server's.
            lastSeenRef.current = lastSeq;
            void reloadMessages();
          }
          dispatch({ type: "frame", frame });
          if (running && !startedRuns.has(running) && !backfillTried && !backfill) {
            if (lastSeq <= lastSeenRef.current) startBackfill(running, lastSeenRef.current);
            else startCheck = { runId: running, until: lastSeq, floor: lastSeenRef.current };
          }
          break;
        }
        case "error":
          if (frame.data.code === "replay_unavailable" && !backfill) void reloadMessages();
          break;
        default:
          break;
      }
    };

    (async () => {
      dispatch({ type: "loading" });
      try {
        const page = await listMessages(threadId, undefined, abort.signal);
        if (disposed) return;
        lastSeenRef.current = page.lastSeq;
        dispatch({ type: "loaded", messages: page.messages, hasOlder: page.messages.length >= PAGE });
      } catch (err) {
        if (!disposed) dispatch({ type: "loadFailed", error: errorText(err) });
        return;
      }
      // Computed at every (re)connect: resume after the last event seen (or, while replaying a run
      // joined mid-way, after the last replayed one).
      const urls = ticketedSocketUrls(threadId, () => (backfill ? backfill.cursor : lastSeenRef.current), abort.signal);
      socket = new ReconnectingWebSocket(
        () => urls.next(),
        undefined,
        {
          minReconnectionDelay: 500 + Math.random() * 500,
          maxReconnectionDelay: 15_000,
          reconnectionDelayGrowFactor: 1.6,
          connectionTimeout: 6_000,
          maxEnqueuedMessages: 0,
        },
      );
      socketRef.current = socket;
      socket.addEventListener("open", () => {
        if (!disposed) setConnection("open");
      });
      socket.addEventListener("close", (ev: CloseEvent) => {
        urls.closed(ev.code);
        if (!disposed) setConnection("closed");
      });
      socket.addEventListener("message", (ev: MessageEvent) => {
        if (disposed || typeof ev.data !== "string") return;
        let frame: ServerFrame;
        try {
          frame = JSON.parse(ev.data) as ServerFrame;
        } catch {
          return;
        }
        if (frame && typeof frame.event === "string") handleFrame(frame);
      });
    })();

    // Keep the socket honest: ping now and then, reconnect when the line has gone silent.
    const heartbeat = setInterval(() => {
      if (!socket || socket.readyState !== socket.OPEN) return;
      if (Date.now() - lastFrameAt > SILENCE_LIMIT_MS) {
        lastFrameAt = Date.now();
        socket.reconnect();
        return;
      }
      socket.send(JSON.stringify({ type: "ping" } satisfies ClientFrame));
    }, PING_EVERY_MS);

    const unsubscribe = outbox.onConfirmed((message: Message) => {
      if (message.threadId === threadId) dispatch({ type: "message", message });
    });

    return () => {
      disposed = true;
      abort.abort();
      clearInterval(heartbeat);
      unsubscribe();
      socket?.close(1000, "leaving thread");
      socketRef.current = null;
    };
  }, [threadId, loadKey, queryClient, outbox]);

  const stop = useCallback(async () => {
    if (!threadId) return;
    try {
      await request("POST /api/threads/:id/stop", { params: { id: threadId } });
    } catch {
      socketRef.current?.send(JSON.stringify({ type: "stop" } satisfies ClientFrame));
    }
  }, [threadId]);

  const loadOlder = useCallback(async () => {
    if (!threadId || state.loadingOlder || !state.hasOlder) return;
    const oldest = state.messages[0];
    if (!oldest) return;
    dispatch({ type: "olderLoading" });
    try {
      const page = await listMessages(threadId, oldest.id);
      dispatch({ type: "olderLoaded", messages: page.messages, hasOlder: page.messages.length >= PAGE });
    } catch {
      dispatch({ type: "olderLoaded", messages: [], hasOlder: true });
    }
  }, [threadId, state.loadingOlder, state.hasOlder, state.messages]);

  const retryLoad = useCallback(() => setLoadKey((k) => k + 1), []);

  /** Reads the thread's current branch again and shows it (after this tab switched branches). */
  const reloadBranch = useCallback(async () => {
    if (!threadId) return;
    const page = await listMessages(threadId);
    dispatch({ type: "branch", messages: page.messages });
  }, [threadId]);

  /** An edit or regeneration of `messageId` is on its way: it and what followed leave the view. */
  const cutAt = useCallback((messageId: string) => dispatch({ type: "cutAt", messageId }), []);

  return { state, connection, stop, loadOlder, retryLoad, reloadBranch, cutAt };
}
