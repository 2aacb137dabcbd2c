// One open thread's chat: a ThreadSync (lib/threadSync.ts) keeps its ChatState in step with the
// server over the thread's socket, which the outbox sends the thread's messages over while it is
// open (lib/messageTransport.ts); this hook adds what the user asks for: stop the run, older pages,
// another try at loading, the branch shown.

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { request } from "../api";
import { chatReducer, initialChatState } from "../lib/chatState";
import { RunNotices } from "../lib/notices";
import { notify } from "../lib/notifications";
import { prewarmThread } from "../lib/prewarm";
import { openThreadSocket } from "../lib/threadSocket";
import { ThreadSync, type ConnectionState } from "../lib/threadSync";
import { listMessages } from "../queries/messages";
import { cacheThreadEvent } from "../queries/threadEvents";
import { threadQuery } from "../queries/threads";
import { useSession } from "../session/SessionGate";
import { MESSAGE_PAGE, type Message } from "@protocol";

/** One open thread's chat. ChatView is keyed by thread, so each thread starts from a fresh state. */
export function useThreadChat(threadId: string | null) {
  const [state, dispatch] = useReducer(chatReducer, threadId, initialChatState);
  const [connection, setConnection] = useState<ConnectionState>("connecting");
  const sync = useRef<ThreadSync | null>(null);
  const [loadKey, setLoadKey] = useState(0);
  const queryClient = useQueryClient();
  const { outbox, sockets } = useSession();

  useEffect(() => {
    setConnection("connecting");
    if (!threadId) return;
    // The first message to a cold thread is answered sooner if its object is up by then.
    prewarmThread(threadId);
    // A scheduled run or a delegated task that ends while the tab is in the background (when opted in).
    const notices = new RunNotices(() => queryClient.getQueryData(threadQuery(threadId).queryKey)?.name ?? "a thread");
    const current = new ThreadSync({
      readMessages: (signal) => listMessages(threadId, undefined, signal),
      openSocket: (since, events, signal) => openThreadSocket(threadId, since, events, signal),
      dispatch,
      onEvent: (frame) => {
        if (frame.event === "chat:message") outbox.reconcile(frame.data.message);
        cacheThreadEvent(queryClient, frame);
        notify(notices.onFrame(frame));
      },
      onConnection: setConnection,
    });
    sync.current = current;
    void current.start();
    const closeSends = sockets.add(threadId, (frame) => current.deliver(frame));
    const unsubscribe = outbox.onConfirmed((message: Message) => {
      if (message.threadId === threadId) dispatch({ type: "message", message });
    });
    return () => {
      closeSends();
      current.dispose();
      unsubscribe();
      sync.current = null;
    };
  }, [threadId, loadKey, queryClient, outbox, sockets]);

  const stop = useCallback(async () => {
    if (!threadId) return;
    try {
      await request("POST /api/threads/:id/stop", { params: { id: threadId } });
    } catch {
      sync.current?.send({ type: "stop" });
    }
  }, [threadId]);

  const loadOlder = useCallback(async () => {
    if (!threadId || state.loadingOlder || !state.hasOlder) return;
    const oldest = state.messages[0];
    if (!oldest) return;
    dispatch({ type: "olderLoading" });
    try {
      const page = await listMessages(threadId, oldest.id);
      dispatch({ type: "olderLoaded", messages: page.messages, hasOlder: page.messages.length >= MESSAGE_PAGE });
    } catch {
      dispatch({ type: "olderLoaded", messages: [], hasOlder: true });
    }
  }, [threadId, state.loadingOlder, state.hasOlder, state.messages]);

  const retryLoad = useCallback(() => setLoadKey((k) => k + 1), []);

  /** Shows a branch of the thread (its newest page), read after this tab switched branches. */
  const showBranch = useCallback((messages: Message[]) => dispatch({ type: "branch", messages }), []);

  /** Reads the thread's current branch again and shows it. */
  const reloadBranch = useCallback(async () => {
    if (threadId) showBranch((await listMessages(threadId)).messages);
  }, [threadId, showBranch]);

  /** An edit or regeneration of `messageId` is on its way: it and what followed leave the view. */
  const cutAt = useCallback((messageId: string) => dispatch({ type: "cutAt", messageId }), []);

  return { state, connection, stop, loadOlder, retryLoad, showBranch, reloadBranch, cutAt };
}
