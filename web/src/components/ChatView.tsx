import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ApiError, errorText } from "../api";
import { clearDraft, useDraft } from "../hooks/useDraft";
import { usePendingMessages } from "../hooks/usePendingMessages";
import { useThreadChat } from "../hooks/useThreadChat";
import { Link, navigate, threadPath } from "../lib/router";
import { buildTimeline } from "../lib/timeline";
import { healthQuery } from "../queries/deployment";
import { useCreateThread, usePatchThread } from "../queries/threadMutations";
import { useThread } from "../queries/threads";
import { useSession } from "../session/SessionGate";
import { Composer, type ComposerHandle } from "./Composer";
import { ConnectionBadge } from "./ConnectionBadge";
import { MessageList } from "./MessageList";
import { ModelSelect } from "./ModelSelect";
import { TaskStrip } from "./TaskStrip";
import { ThreadTitle } from "./ThreadTitle";

/** A name for a thread created by its first message. */
function nameFrom(content: string): string {
  const line = content.trim().split("\n")[0].replace(/\s+/g, " ");
  return line.length > 48 ? line.slice(0, 47) + "…" : line || "New thread";
}

/** Announces the reply's progress to screen readers (the streamed text itself is not read out). */
function useRunAnnouncement(running: boolean, lastStatus: string | undefined): string {
  const [text, setText] = useState("");
  const was = useRef(running);
  useEffect(() => {
    if (running && !was.current) setText("Assistant is replying…");
    if (!running && was.current) setText(lastStatus === "error" ? "The reply failed." : "Reply complete.");
    was.current = running;
  }, [running, lastStatus]);
  return text;
}

export function ChatView({ threadId }: { threadId: string | null }) {
  const health = useQuery(healthQuery).data;
  const threadQuery = useThread(threadId);
  const thread = threadQuery.data;
  const missing = threadQuery.error instanceof ApiError && threadQuery.error.status === 404;
  const { mutateAsync: createThread } = useCreateThread();
  const patchThread = usePatchThread();
  const { state, connection, stop, loadOlder, retryLoad } = useThreadChat(threadId);
  const { outbox, storage } = useSession();
  const pending = usePendingMessages(threadId);
  const [draft, setDraft] = useDraft(threadId);
  const [notice, setNotice] = useState<string | null>(null);
  const composer = useRef<ComposerHandle>(null);
  const creating = useRef(false);

  useEffect(() => {
    composer.current?.focus();
  }, [threadId]);

  const items = useMemo(
    () => buildTimeline(state.messages, state.runs, state.runOrder, pending),
    [state.messages, state.runs, state.runOrder, pending],
  );

  const running = state.running !== null;
  const lastRun = state.runOrder.length ? state.runs[state.runOrder[state.runOrder.length - 1]] : undefined;
  const announcement = useRunAnnouncement(running, lastRun?.status);

  const send = useCallback(
    async (content: string) => {
      setNotice(null);
      if (threadId) {
        outbox.enqueue(threadId, content);
        setDraft("");
        return;
      }
      if (creating.current) return;
      creating.current = true;
      try {
        const created = await createThread({ name: nameFrom(content) });
        outbox.enqueue(created.id, content);
        clearDraft(storage, null);
        navigate(threadPath(created.id));
      } catch (err) {
        setNotice(`Could not create a thread: ${errorText(err)}`);
      } finally {
        creating.current = false;
      }
    },
    [threadId, setDraft, createThread, outbox, storage],
  );

  const retry = useCallback((content: string) => threadId && outbox.enqueue(threadId, content), [threadId, outbox]);

  const changeModel = async (model: string) => {
    if (!threadId) return;
    try {
      await patchThread.mutateAsync({ id: threadId, model });
    } catch (err) {
      setNotice(`Could not change the model: ${errorText(err)}`);
    }
  };

  if (missing) {
    return (
      <div className="chat-view">
        <div className="empty-state">
          <h1>Thread not found</h1>
          <p className="muted">It may have been deleted, or it belongs to someone else.</p>
          <Link href="/" className="button">Back to chat</Link>
        </div>
      </div>
    );
  }

  const empty = threadId ? (
    state.load === "ready" ? (
      <div className="empty-state small-empty">
        <p className="muted">No messages yet. Say hello.</p>
      </div>
    ) : null
  ) : (
    <div className="empty-state">
      <h1>What shall we work on?</h1>
      <p className="muted">
        Each message runs through the orchestrator's pipeline: <code>onMessage</code> → <code>onBeforeInvoke</code> →{" "}
        <code>invoking</code> → <code>onAfterInvoke</code> → commands. You can watch every step live.
      </p>
    </div>
  );

  return (
    <div className="chat-view">
      <header className="chat-header">
        {thread ? <ThreadTitle thread={thread} /> : <h1 className="chat-title">{threadId ? "…" : "New conversation"}</h1>}
        <div className="chat-header-tools">
          {thread?.parentThreadId && (
            <Link href={threadPath(thread.parentThreadId)} className="small">
              ↑ Parent thread
            </Link>
          )}
          {thread && (
            <ModelSelect value={thread.model} defaultModel={health?.model.default} onChange={changeModel} />
          )}
          {threadId && <ConnectionBadge state={connection} />}
        </div>
      </header>

      {state.load === "loading" && (
        <div className="loading-line" role="status">
          Loading messages…
        </div>
      )}
      {state.load === "error" && (
        <div className="inline-alert" role="alert">
          Could not load the messages: {state.loadError}{" "}
          <button type="button" className="link-button" onClick={retryLoad}>
            Try again
          </button>
        </div>
      )}

      <MessageList
        items={items}
        hasOlder={state.hasOlder}
        loadingOlder={state.loadingOlder}
        onLoadOlder={loadOlder}
        onRetry={retry}
        empty={empty}
      />

      <div className="visually-hidden" aria-live="polite" role="status">
        {announcement}
      </div>

      <footer className="chat-footer">
        {threadId && <TaskStrip threadId={threadId} />}
        {notice && (
          <div className="inline-alert" role="alert">
            {notice}
          </div>
        )}
        <Composer
          ref={composer}
          value={draft}
          onChange={setDraft}
          onSend={send}
          running={running}
          onStop={stop}
        />
      </footer>
    </div>
  );
}
