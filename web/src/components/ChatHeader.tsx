import type { Thread } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, threadPath } from "../lib/router";
import type { ConnectionState } from "../lib/threadSync";
import { healthQuery } from "../queries/deployment";
import { ConnectionBadge } from "./ConnectionBadge";
import { ModelSelect } from "./ModelSelect";
import { ShareDialog } from "./ShareDialog";
import { ThreadMenu } from "./ThreadMenu";
import { ThreadSettings } from "./ThreadSettings";
import { ThreadTitle } from "./ThreadTitle";

/** The chat's header: the thread's name, its parent, its model, settings and menu, and the socket. */
export function ChatHeader({
  threadId,
  thread,
  connection,
  onChangeModel,
}: {
  threadId: string | null;
  thread: Thread | undefined;
  connection: ConnectionState;
  onChangeModel: (model: string) => void;
}) {
  const health = useQuery(healthQuery).data;
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [sharing, setSharing] = useState(false);
  return (
    <header className="chat-header">
      {thread ? <ThreadTitle thread={thread} /> : <h1 className="chat-title">{threadId ? "…" : "New conversation"}</h1>}
      <div className="chat-header-tools">
        {thread?.parentThreadId && (
          <Link href={threadPath(thread.parentThreadId)} className="small">
            ↑ Parent thread
          </Link>
        )}
        {thread && <ModelSelect value={thread.model} defaultModel={health?.model.default} onChange={onChangeModel} />}
        {thread && (
          <button
            type="button"
            className={"icon-button" + (thread.instructions ? " has-dot" : "")}
            data-testid="open-settings"
            aria-label={thread.instructions ? "Thread settings (custom instructions set)" : "Thread settings"}
            title="Thread settings"
            onClick={() => setSettingsOpen(true)}
          >
            <svg viewBox="0 0 24 24" width="17" height="17" aria-hidden="true" focusable="false">
              <path d="M4 7h10M18 7h2M4 17h4M12 17h8" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" />
              <circle cx="16" cy="7" r="2.2" fill="none" stroke="currentColor" strokeWidth="1.8" />
              <circle cx="10" cy="17" r="2.2" fill="none" stroke="currentColor" strokeWidth="1.8" />
            </svg>
          </button>
        )}
        {thread && <ThreadMenu thread={thread} onOpenSettings={() => setSettingsOpen(true)} onShare={() => setSharing(true)} />}
        {threadId && <ConnectionBadge state={connection} />}
      </div>
      {settingsOpen && thread && <ThreadSettings thread={thread} onClose={() => setSettingsOpen(false)} />}
      {sharing && thread && <ShareDialog thread={thread} onClose={() => setSharing(false)} />}
    </header>
  );
}
