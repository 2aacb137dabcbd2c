import type { Thread } from "@protocol";
import { memo, useState } from "react";
import { errorText } from "../api";
import { clearDraft } from "../hooks/useDraft";
import { usePrewarmOnHover } from "../hooks/usePrewarmOnHover";
import { formatRelative } from "../lib/format";
import { Link, navigate, threadPath } from "../lib/router";
import { useDeleteThread, usePatchThread } from "../queries/threadMutations";
import { useSession } from "../session/SessionGate";
import { ApprovalBadge } from "./ApprovalBadge";
import { RenameThread } from "./RenameThread";
import { ThreadKindMark } from "./ThreadKindMark";

/**
 * One thread in the sidebar: its link (with a dot when it has news not seen yet, a badge when a tool
 * call waits for the user's approval, a clock when it is a scheduled thread, "API" when a program
 * made it), and rename, archive and delete (after a confirmation).
 */
export const ThreadRow = memo(function ThreadRow({
  thread,
  active,
  unread,
  onNavigate,
}: {
  thread: Thread;
  active: boolean;
  unread: boolean;
  onNavigate: () => void;
}) {
  const [mode, setMode] = useState<"idle" | "rename" | "confirm-delete">("idle");
  const [error, setError] = useState<string | null>(null);
  const patch = usePatchThread();
  const remove = useDeleteThread();
  const { outbox, storage } = useSession();
  const busy = patch.isPending || remove.isPending;
  const archived = thread.status === "archived";

  const rename = () => {
    setError(null);
    setMode("rename");
  };

  const toggleArchive = () => {
    setError(null);
    patch.mutate({ id: thread.id, status: archived ? "open" : "archived" }, { onError: (err) => setError(errorText(err)) });
  };

  const confirmDelete = () => {
    setError(null);
    remove.mutate(thread.id, {
      onSuccess: () => {
        outbox.forgetThread(thread.id);
        clearDraft(storage, thread.id);
        if (active) navigate("/");
      },
      onError: (err) => setError(errorText(err)),
    });
  };

  return (
    <div
      className={"thread-row" + (active ? " is-active" : "") + (archived ? " is-archived" : "") + (unread ? " is-unread" : "")}
      data-testid="thread-item"
      data-thread-id={thread.id}
      data-kind={thread.kind}
      data-status={thread.status}
      data-unread={unread ? "true" : undefined}
      data-needs-approval={thread.pendingApprovals?.length ? "true" : undefined}
    >
      {mode === "rename" ? (
        <RenameThread
          thread={thread}
          className="thread-rename"
          testId="thread-rename-input"
          label={`New name for ${thread.name}`}
          onClose={() => setMode("idle")}
          onError={setError}
        />
      ) : (
        <ThreadLink thread={thread} active={active} unread={unread} onNavigate={onNavigate} />
      )}
      {mode === "confirm-delete" && (
        <div className="thread-confirm" role="group" aria-label={`Delete ${thread.name}?`}>
          <button type="button" className="button small danger" data-testid="thread-delete-confirm" disabled={busy} onClick={confirmDelete}>
            Delete
          </button>
          <button type="button" className="button small ghost" onClick={() => setMode("idle")}>
            Cancel
          </button>
        </div>
      )}
      {mode === "idle" && (
        <div className="thread-actions">
          <RowAction name="Rename" glyph="✎" testId="thread-rename" thread={thread} onClick={rename} />
          <RowAction name={archived ? "Unarchive" : "Archive"} glyph={archived ? "⇡" : "⇣"} testId="thread-archive" thread={thread} disabled={busy} onClick={toggleArchive} />
          <RowAction name="Delete" glyph="✕" testId="thread-delete" thread={thread} onClick={() => setMode("confirm-delete")} />
        </div>
      )}
      {error && (
        <div className="thread-error error-text small" role="alert">
          {error}
        </div>
      )}
    </div>
  );
});

/** The row's link to its thread: its name (marked when scheduled or made through the API), its last activity, and its news. */
function ThreadLink({ thread, active, unread, onNavigate }: { thread: Thread; active: boolean; unread: boolean; onNavigate: () => void }) {
  const prewarm = usePrewarmOnHover(thread.id);
  return (
    <Link href={threadPath(thread.id)} className="thread-link" aria-current={active ? "page" : undefined} onClick={onNavigate} {...prewarm}>
      <span className={`thread-dot is-${thread.status}`} aria-hidden="true" />
      <span className="thread-name">
        <ThreadKindMark kind={thread.kind} />
        {thread.name}
      </span>
      <span className="thread-time">
        {formatRelative(thread.lastActivity)}
        {unread && (
          <span className="unread-dot" data-testid="unread-dot" title="New since you last looked">
            <span className="visually-hidden">, new activity</span>
          </span>
        )}
        <ApprovalBadge thread={thread} />
      </span>
    </Link>
  );
}

/** One of a row's icon buttons: `name` is its tooltip, and with the thread's name its label. */
function RowAction({
  name,
  glyph,
  testId,
  thread,
  disabled,
  onClick,
}: {
  name: string;
  glyph: string;
  testId: string;
  thread: Thread;
  disabled?: boolean;
  onClick: () => void;
}) {
  return (
    <button type="button" className="icon-button" data-testid={testId} aria-label={`${name} ${thread.name}`} title={name} disabled={disabled} onClick={onClick}>
      {glyph}
    </button>
  );
}
