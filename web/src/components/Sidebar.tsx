import { memo, useMemo, useState } from "react";
import { errorText } from "../api";
import { clearDraft } from "../hooks/useDraft";
import { formatRelative } from "../lib/format";
import { Link, navigate, threadPath, useRoute, type Route } from "../lib/router";
import { useCreateThread, useDeleteThread, usePatchThread } from "../queries/threadMutations";
import { useThreadList } from "../queries/threads";
import { useSession } from "../session/SessionGate";
import type { Thread } from "@protocol";

interface Node {
  thread: Thread;
  children: Node[];
  /** Newest activity in the subtree: a busy task lifts its parent. */
  latest: number;
}

/** Task threads nest under their parent (when the parent is listed); newest activity first. */
function buildTree(threads: Thread[]): Node[] {
  const nodes = new Map<string, Node>(threads.map((t) => [t.id, { thread: t, children: [], latest: t.lastActivity }]));
  const roots: Node[] = [];
  for (const node of nodes.values()) {
    const parent = node.thread.parentThreadId ? nodes.get(node.thread.parentThreadId) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  const settle = (node: Node, depth: number): number => {
    if (depth > 20) return node.latest; // a malformed cycle must not hang the page
    for (const c of node.children) node.latest = Math.max(node.latest, settle(c, depth + 1));
    node.children.sort((a, b) => b.latest - a.latest);
    return node.latest;
  };
  roots.forEach((r) => settle(r, 0));
  return roots.sort((a, b) => b.latest - a.latest);
}

const NAV: { to: string; label: string; testid: string; match: Route["name"] }[] = [
  { to: "/", label: "Chat", testid: "nav-chat", match: "chat" },
  { to: "/plugins", label: "Plugins", testid: "nav-plugins", match: "plugins" },
  { to: "/context", label: "Context", testid: "nav-context", match: "context" },
  { to: "/tasks", label: "Tasks", testid: "nav-tasks", match: "tasks" },
  { to: "/usage", label: "Usage", testid: "nav-usage", match: "usage" },
];

const ThreadRow = memo(function ThreadRow({
  thread,
  active,
  onNavigate,
}: {
  thread: Thread;
  active: boolean;
  onNavigate: () => void;
}) {
  const [mode, setMode] = useState<"idle" | "rename" | "confirm-delete">("idle");
  const [name, setName] = useState(thread.name);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const patch = usePatchThread();
  const del = useDeleteThread();
  const { outbox, storage } = useSession();

  const act = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const rename = () =>
    act(async () => {
      setMode("idle");
      const next = name.trim();
      if (next && next !== thread.name) await patch.mutateAsync({ id: thread.id, name: next });
      else setName(thread.name);
    });

  const archived = thread.status === "archived";
  const toggleArchive = () => act(() => patch.mutateAsync({ id: thread.id, status: archived ? "open" : "archived" }));

  const remove = () =>
    act(async () => {
      await del.mutateAsync(thread.id);
      outbox.forgetThread(thread.id);
      clearDraft(storage, thread.id);
      if (active) navigate("/");
    });

  return (
    <div
      className={"thread-row" + (active ? " is-active" : "") + (archived ? " is-archived" : "")}
      data-testid="thread-item"
      data-thread-id={thread.id}
      data-kind={thread.kind}
      data-status={thread.status}
    >
      {mode === "rename" ? (
        <input
          className="thread-rename"
          data-testid="thread-rename-input"
          aria-label={`New name for ${thread.name}`}
          value={name}
          autoFocus
          onChange={(e) => setName(e.target.value)}
          onBlur={() => void rename()}
          onKeyDown={(e) => {
            if (e.key === "Enter") void rename();
            if (e.key === "Escape") {
              setName(thread.name);
              setMode("idle");
            }
          }}
        />
      ) : (
        <Link
          href={threadPath(thread.id)}
          className="thread-link"
          aria-current={active ? "page" : undefined}
          onClick={onNavigate}
        >
          <span className={`thread-dot is-${thread.status}`} aria-hidden="true" />
          <span className="thread-name">{thread.name}</span>
          <span className="thread-time">{formatRelative(thread.lastActivity)}</span>
        </Link>
      )}
      {mode === "confirm-delete" ? (
        <div className="thread-confirm" role="group" aria-label={`Delete ${thread.name}?`}>
          <button type="button" className="button small danger" data-testid="thread-delete-confirm" disabled={busy} onClick={() => void remove()}>
            Delete
          </button>
          <button type="button" className="button small ghost" onClick={() => setMode("idle")}>
            Cancel
          </button>
        </div>
      ) : (
        mode === "idle" && (
          <div className="thread-actions">
            <button
              type="button"
              className="icon-button"
              data-testid="thread-rename"
              aria-label={`Rename ${thread.name}`}
              title="Rename"
              onClick={() => {
                setName(thread.name);
                setMode("rename");
              }}
            >
              ✎
            </button>
            <button
              type="button"
              className="icon-button"
              data-testid="thread-archive"
              aria-label={`${archived ? "Unarchive" : "Archive"} ${thread.name}`}
              title={archived ? "Unarchive" : "Archive"}
              disabled={busy}
              onClick={() => void toggleArchive()}
            >
              {archived ? "⇡" : "⇣"}
            </button>
            <button
              type="button"
              className="icon-button"
              data-testid="thread-delete"
              aria-label={`Delete ${thread.name}`}
              title="Delete"
              onClick={() => setMode("confirm-delete")}
            >
              ✕
            </button>
          </div>
        )
      )}
      {error && (
        <div className="thread-error error-text small" role="alert">
          {error}
        </div>
      )}
    </div>
  );
});

function ThreadTree({ nodes, activeId, onNavigate }: { nodes: Node[]; activeId: string | null; onNavigate: () => void }) {
  return (
    <>
      {nodes.map((n) => (
        <li key={n.thread.id}>
          <ThreadRow thread={n.thread} active={n.thread.id === activeId} onNavigate={onNavigate} />
          {n.children.length > 0 && (
            <ul className="thread-children" aria-label={`Tasks of ${n.thread.name}`}>
              <ThreadTree nodes={n.children} activeId={activeId} onNavigate={onNavigate} />
            </ul>
          )}
        </li>
      ))}
    </>
  );
}

/** Who is signed in, and the way out (token mode; otherwise the deployment signs people in). */
function Account() {
  const { auth, signOut } = useSession();
  if (auth.mode !== "token") return null;
  return (
    <div className="account" data-testid="account">
      <span className="muted small">
        Signed in as <strong data-testid="account-user">{auth.userId}</strong>
      </span>
      <button type="button" className="button ghost small" data-testid="sign-out" onClick={signOut}>
        Sign out
      </button>
    </div>
  );
}

export function Sidebar({ onNavigate }: { onNavigate: () => void }) {
  const route = useRoute();
  const [showArchived, setShowArchived] = useState(false);
  const { threads, list } = useThreadList(showArchived);
  const createThread = useCreateThread();
  const activeId = route.name === "chat" ? route.threadId : null;

  const tree = useMemo(() => buildTree(threads), [threads]);

  const create = () =>
    createThread.mutate(
      {},
      {
        onSuccess: (thread) => {
          navigate(threadPath(thread.id));
          onNavigate();
        },
      },
    );

  return (
    <div className="sidebar-inner">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">◆</span>
        <span>Orchestrator</span>
      </div>

      <nav className="main-nav" aria-label="Main">
        {NAV.map((item) => (
          <Link
            key={item.to}
            href={item.to}
            data-testid={item.testid}
            className="nav-link"
            aria-current={route.name === item.match ? "page" : undefined}
            onClick={onNavigate}
          >
            {item.label}
          </Link>
        ))}
      </nav>

      <button type="button" className="button primary new-thread" data-testid="new-thread" onClick={create} disabled={createThread.isPending}>
        <span aria-hidden="true">+</span> New thread
      </button>
      {createThread.error && (
        <p className="error-text small" role="alert">
          {errorText(createThread.error)}
        </p>
      )}

      <div className="thread-section">
        <h2 className="section-label" id="threads-heading">
          Threads
        </h2>
        {list.isPending && <p className="muted small">Loading…</p>}
        {list.isError && !list.data && (
          <p className="error-text small" role="alert">
            {errorText(list.error)}{" "}
            <button type="button" className="link-button" onClick={() => void list.refetch()}>
              Retry
            </button>
          </p>
        )}
        <ul className="thread-list" data-testid="thread-list" aria-labelledby="threads-heading" aria-busy={list.isPending}>
          <ThreadTree nodes={tree} activeId={activeId} onNavigate={onNavigate} />
        </ul>
        {list.isSuccess && tree.length === 0 && <p className="muted small">No threads yet.</p>}
        {list.hasNextPage && (
          <button type="button" className="button ghost small" disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
            Load more
          </button>
        )}
        <label className="toggle-line small">
          <input type="checkbox" checked={showArchived} onChange={(e) => setShowArchived(e.target.checked)} />
          Show archived
        </label>
      </div>
      <Account />
    </div>
  );
}
