import { lazy, Suspense, useCallback, useEffect, useRef, useState } from "react";
import { useBranchActions } from "../hooks/useBranchActions";
import { useDraftMessage } from "../hooks/useDraftMessage";
import { useFileDrop } from "../hooks/useFileDrop";
import { useJumpToMessage } from "../hooks/useJumpToMessage";
import { useMessageActions } from "../hooks/useMessageActions";
import { useOpenThread } from "../hooks/useOpenThread";
import { useResearchComposer } from "../hooks/useResearchComposer";
import { useThreadChat } from "../hooks/useThreadChat";
import { useThreadTimeline } from "../hooks/useThreadTimeline";
import { useSession } from "../session/SessionGate";
import { ApprovalsContext } from "./approvalsState";
import { ArtifactPanelContext } from "./artifactPanelState";
import { ChatActionsContext } from "./chatActions";
import { ChatAnnouncements } from "./ChatAnnouncements";
import { ChatHeader } from "./ChatHeader";
import { MessagesLoad, NoMessages, ThreadNotFound } from "./ChatViewStates";
import { Composer, type ComposerHandle } from "./Composer";
import { ErrorDetails } from "./ErrorDetails";
import { MessageList } from "./MessageList";
import { TaskStrip } from "./TaskStrip";

// Loaded when an artifact is first opened.
const ArtifactPanel = lazy(() => import("./ArtifactPanel").then((m) => ({ default: m.ArtifactPanel })));

/** One thread's conversation and composer; `threadId` null: a new conversation. Keyed by thread. */
export function ChatView({ threadId }: { threadId: string | null }) {
  const [notice, setNotice] = useState<string | null>(null);
  const { thread, missing, approvals, changeModel } = useOpenThread(threadId, setNotice);
  const chat = useThreadChat(threadId);
  const { state } = chat;
  const { outbox } = useSession();
  const composer = useRef<ComposerHandle>(null);
  const branches = useBranchActions(threadId, state.messages, chat);
  const message = useDraftMessage(threadId, setNotice);
  const research = useResearchComposer(message.threadFor, message.sent);
  const drop = useFileDrop(message.files.add);

  useEffect(() => {
    composer.current?.focus();
  }, [threadId]);

  const { items, artifactPanel } = useThreadTimeline(threadId, state);
  const running = state.running !== null;
  const lastRun = state.runOrder.length ? state.runs[state.runOrder[state.runOrder.length - 1]] : undefined;
  const highlight = useJumpToMessage(threadId, state, { loadOlder: chat.loadOlder, switchTo: branches.switchTo, switching: branches.switching }, setNotice);
  const retry = useCallback((content: string) => threadId && outbox.enqueue(threadId, content), [threadId, outbox]);
  const { actions, editLast } = useMessageActions(threadId, running || branches.switching, state.messages, branches);

  if (missing) return <ThreadNotFound />;

  const empty = !threadId || state.load === "ready" ? <NoMessages newConversation={!threadId} /> : null;
  const alert = notice ?? branches.error;

  return (
    <div
      className={"chat-view" + (drop.dragging ? " is-dropping" : "") + (artifactPanel.openId ? " has-artifact" : "")}
      data-testid="chat-view"
      {...drop.handlers}
    >
      <ChatHeader threadId={threadId} thread={thread} connection={chat.connection} onChangeModel={changeModel} />
      <MessagesLoad state={state} onRetry={chat.retryLoad} />

      <ChatActionsContext.Provider value={actions}>
        <ArtifactPanelContext.Provider value={artifactPanel}>
          <ApprovalsContext.Provider value={approvals}>
            <MessageList
              items={items}
              hasOlder={state.hasOlder}
              loadingOlder={state.loadingOlder}
              onLoadOlder={chat.loadOlder}
              onRetry={retry}
              empty={empty}
              highlight={highlight}
            />
          </ApprovalsContext.Provider>
        </ArtifactPanelContext.Provider>
      </ChatActionsContext.Provider>

      <ChatAnnouncements running={running} lastStatus={lastRun?.status} waiting={approvals?.pending.size ?? 0} />

      <footer className="chat-footer">
        {threadId && <TaskStrip threadId={threadId} />}
        {alert && (
          <div className="inline-alert" role="alert" data-testid="chat-notice">
            {alert}
          </div>
        )}
        {research.error && <ErrorDetails error={research.error} />}
        <Composer
          ref={composer}
          value={message.draft}
          onChange={message.setDraft}
          onSend={research.on ? research.ask : message.send}
          running={running}
          onStop={chat.stop}
          uploads={message.files.uploads}
          uploadsSummary={message.files.summary}
          onFiles={message.files.add}
          onRemoveUpload={message.files.remove}
          onEditLast={editLast}
          research={{ on: research.on, onToggle: research.toggle, starting: research.pending }}
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
