import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ApiError, errorText } from "../api";
import { useArtifactPanel } from "../hooks/useArtifactPanel";
import { useBranchActions } from "../hooks/useBranchActions";
import { clearDraft, useDraft } from "../hooks/useDraft";
import { useFileDrop } from "../hooks/useFileDrop";
import { useJumpToMessage } from "../hooks/useJumpToMessage";
import { usePendingMessages } from "../hooks/usePendingMessages";
import { useThreadChat } from "../hooks/useThreadChat";
import { useThreadTimeZone } from "../hooks/useThreadTimeZone";
import { useUploads } from "../hooks/useUploads";
import { withArtifactCards } from "../lib/artifactCards";
import { artifactDrafts, writtenBy } from "../lib/artifactDrafts";
import { lastUserMessage } from "../lib/branches";
import { Link, navigate, threadPath } from "../lib/router";
import { buildTimeline } from "../lib/timeline";
import { useThreadArtifacts } from "../queries/artifacts";
import { useSendMessage } from "../queries/messages";
import { useCreateThread, usePatchThread } from "../queries/threadMutations";
import { useThread } from "../queries/threads";
import { useSession } from "../session/SessionGate";
import { approvalsState, ApprovalsContext } from "./approvalsState";
import { ArtifactPanelContext } from "./artifactPanelState";
import { ChatActionsContext, type ChatActions } from "./chatActions";
import { ChatHeader } from "./ChatHeader";
import { Composer, type ComposerHandle } from "./Composer";
import { MessageList } from "./MessageList";
import { TaskStrip } from "./TaskStrip";

// Loaded when an artifact is first opened.
const ArtifactPanel = lazy(() => import("./ArtifactPanel").then((m) => ({ default: m.ArtifactPanel })));

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

/** Tells screen readers when a tool call starts waiting for the user (its card is far down the log). */
function useApprovalAnnouncement(waiting: number): string {
  const [text, setText] = useState("");
  const was = useRef(waiting);
  useEffect(() => {
    if (waiting > was.current) setText(waiting === 1 ? "A tool call is waiting for your approval." : `${waiting} tool calls are waiting for your approval.`);
    if (waiting === 0) setText("");
    was.current = waiting;
  }, [waiting]);
  return text;
}

export function ChatView({ threadId }: { threadId: string | null }) {
  const threadQuery = useThread(threadId);
  const thread = threadQuery.data;
  const missing = threadQuery.error instanceof ApiError && threadQuery.error.status === 404;
  // The thread's own answer (the list's stand-in has no timezone).
  useThreadTimeZone(threadQuery.isPlaceholderData ? undefined : thread);
  const { mutateAsync: createThread } = useCreateThread();
  const patchThread = usePatchThread();
  const { state, connection, stop, loadOlder, retryLoad, showBranch, reloadBranch, cutAt } = useThreadChat(threadId);
  const { outbox, storage } = useSession();
  const pending = usePendingMessages(threadId);
  const [draft, setDraft] = useDraft(threadId);
  const [notice, setNotice] = useState<string | null>(null);
  const [editingId, setEditingId] = useState<string | null>(null);
  const composer = useRef<ComposerHandle>(null);
  const branches = useBranchActions(threadId, state.messages, { cutAt, showBranch, reloadBranch });

  // A new conversation's files need a thread to go to: the first file creates it (unnamed, so that
  // the server names it from the first exchange), and the first message goes there too; a message
  // sent first creates it with its `name`.
  const draftThread = useRef<Promise<string> | null>(null);
  const threadFor = useCallback(
    async (name?: string) => {
      if (threadId) return threadId;
      draftThread.current ??= createThread(name ? { name } : {}).then((t) => t.id);
      return draftThread.current.catch((err) => {
        draftThread.current = null;
        throw err;
      });
    },
    [threadId, createThread],
  );
  const files = useUploads(threadFor);
  const { mutateAsync: sendMessage, isPending: sending } = useSendMessage(threadFor);
  const drop = useFileDrop(files.add);

  useEffect(() => {
    composer.current?.focus();
  }, [threadId]);

  const artifacts = useThreadArtifacts(threadId);
  // Artifacts being written (their tool call's input streaming): cards and a panel that grow.
  const drafts = useMemo(() => artifactDrafts(state.runs, state.runOrder, artifacts), [state.runs, state.runOrder, artifacts]);
  const artifactPanel = useArtifactPanel(drafts, (toolUseId) => writtenBy(state.runs, toolUseId));
  const items = useMemo(
    () => withArtifactCards(buildTimeline(state.messages, state.runs, state.runOrder, pending), artifacts, drafts),
    [state.messages, state.runs, state.runOrder, pending, artifacts, drafts],
  );

  // The thread's calls waiting for the user: read with the thread, kept current by its socket's events (queries/approvals.ts).
  const pendingApprovals = thread?.pendingApprovals;
  const approvals = useMemo(() => (threadId ? approvalsState(threadId, pendingApprovals) : null), [threadId, pendingApprovals]);
  const approvalAnnouncement = useApprovalAnnouncement(approvals?.pending.size ?? 0);

  const running = state.running !== null;
  const lastRun = state.runOrder.length ? state.runs[state.runOrder[state.runOrder.length - 1]] : undefined;
  const announcement = useRunAnnouncement(running, lastRun?.status);
  const highlight = useJumpToMessage(threadId, state, { loadOlder, switchTo: branches.switchTo, switching: branches.switching }, setNotice);

  const send = useCallback(
    async (content: string) => {
      // A new conversation's first message goes once, even when Enter is pressed again while its
      // thread is being made.
      if (!threadId && sending) return;
      setNotice(null);
      try {
        const id = await sendMessage({ content, attachments: files.summary.attachments });
        files.clear();
        if (threadId) {
          setDraft("");
        } else {
          clearDraft(storage, null);
          navigate(threadPath(id));
        }
      } catch (err) {
        setNotice(`Could not create a thread: ${errorText(err)}`);
      }
    },
    [threadId, sending, sendMessage, setDraft, storage, files],
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

  const busy = running || branches.switching;
  const actions = useMemo<ChatActions | null>(
    () =>
      threadId
        ? {
            threadId,
            busy,
            editingId,
            setEditingId,
            edit: branches.edit,
            regenerate: branches.regenerate,
            switchTo: (id) => {
              setEditingId(null);
              void branches.switchTo(id);
            },
            discard: branches.discard,
          }
        : null,
    [threadId, busy, editingId, branches],
  );

  // The Up arrow in an empty composer edits the last message (as in other chat apps).
  const editLast = useCallback(() => {
    const last = lastUserMessage(state.messages);
    if (!threadId || busy || !last) return false;
    setEditingId(last.id);
    return true;
  }, [threadId, busy, state.messages]);

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

  const alert = notice ?? branches.error;

  return (
    <div
      className={"chat-view" + (drop.dragging ? " is-dropping" : "") + (artifactPanel.openId ? " has-artifact" : "")}
      data-testid="chat-view"
      {...drop.handlers}
    >
      <ChatHeader threadId={threadId} thread={thread} connection={connection} onChangeModel={changeModel} />

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

      <ChatActionsContext.Provider value={actions}>
        <ArtifactPanelContext.Provider value={artifactPanel}>
          <ApprovalsContext.Provider value={approvals}>
            <MessageList
              items={items}
              hasOlder={state.hasOlder}
              loadingOlder={state.loadingOlder}
              onLoadOlder={loadOlder}
              onRetry={retry}
              empty={empty}
              highlight={highlight}
            />
          </ApprovalsContext.Provider>
        </ArtifactPanelContext.Provider>
      </ChatActionsContext.Provider>

      <div className="visually-hidden" aria-live="polite" role="status">
        {announcement}
      </div>
      <div className="visually-hidden" aria-live="polite" role="status" data-testid="approval-announcement">
        {approvalAnnouncement}
      </div>

      <footer className="chat-footer">
        {threadId && <TaskStrip threadId={threadId} />}
        {alert && (
          <div className="inline-alert" role="alert" data-testid="chat-notice">
            {alert}
          </div>
        )}
        <Composer
          ref={composer}
          value={draft}
          onChange={setDraft}
          onSend={send}
          running={running}
          onStop={stop}
          uploads={files.uploads}
          uploadsSummary={files.summary}
          onFiles={files.add}
          onRemoveUpload={files.remove}
          onEditLast={editLast}
        />
      </footer>

      {threadId && artifactPanel.openId && (
        <Suspense fallback={<aside className="artifact-panel" aria-busy="true" />}>
          <ArtifactPanel key={artifactPanel.openId} threadId={threadId} artifactId={artifactPanel.openId} draft={artifactPanel.draft} onClose={artifactPanel.close} />
        </Suspense>
      )}

      {drop.dragging && (
        <div className="drop-overlay" aria-hidden="true">
          <div className="drop-overlay-inner">Drop files to attach them</div>
        </div>
      )}
    </div>
  );
}
