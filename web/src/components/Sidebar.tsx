import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { errorText } from "../api";
import { useListNotices } from "../hooks/useNotifications";
import { useUnread } from "../hooks/useUnread";
import { groupByProject, groupOfThread } from "../lib/projectGroups";
import { CONNECTIONS_PATH, Link, navigate, threadPath, useRoute, type Route } from "../lib/router";
import { projectsQuery } from "../queries/projects";
import { useCreateThread } from "../queries/threadMutations";
import { useThreadList } from "../queries/threads";
import { useSession } from "../session/SessionGate";
import { NewProject } from "./NewProject";
import { NotificationToggle } from "./NotificationToggle";
import { ProjectGroup } from "./ProjectGroup";
import { buildTree, ThreadTree } from "./ThreadTree";

const NAV: { to: string; label: string; testid: string; match: Route["name"] }[] = [
  { to: "/", label: "Chat", testid: "nav-chat", match: "chat" },
  { to: "/plugins", label: "Plugins", testid: "nav-plugins", match: "plugins" },
  { to: "/context", label: "Context", testid: "nav-context", match: "context" },
  { to: "/tasks", label: "Tasks", testid: "nav-tasks", match: "tasks" },
  { to: "/scheduled", label: "Scheduled", testid: "nav-scheduled", match: "scheduled" },
  { to: "/usage", label: "Usage", testid: "nav-usage", match: "usage" },
  { to: CONNECTIONS_PATH, label: "Connections", testid: "nav-connections", match: "connections" },
];

/** Who is signed in, and the way out; a deployment without sign-in (`none`) says so instead. */
function Account() {
  const { auth, signOut } = useSession();
  if (!signOut) {
    return (
      <div className="account" data-testid="account">
        <span className="muted small">No sign-in: this deployment has one local user.</span>
      </div>
    );
  }
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

/** Ctrl+K, or ⌘K where the platform says it is a Mac. */
const SEARCH_KEYS = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform) ? "⌘K" : "Ctrl+K";

export function Sidebar({ onNavigate, onSearch }: { onNavigate: () => void; onSearch: () => void }) {
  const route = useRoute();
  const [showArchived, setShowArchived] = useState(false);
  const { threads, list } = useThreadList(showArchived);
  const createThread = useCreateThread();
  const activeId = route.name === "chat" ? route.threadId : null;

  const tree = useMemo(() => buildTree(threads), [threads]);
  const projects = useQuery(projectsQuery).data;
  const groups = useMemo(() => groupByProject(tree, projects ?? []), [tree, projects]);
  /** Groups folded by the user (by project id, "" for No project); the open thread's group stays open. */
  const [folded, setFolded] = useState<ReadonlySet<string>>(() => new Set());
  const activeGroup = groupOfThread(groups, activeId);
  const activeProject = route.name === "project" ? route.projectId : null;
  // Opening a thread unfolds its group.
  useEffect(() => {
    if (activeGroup === undefined) return;
    setFolded((set) => {
      if (!set.has(activeGroup ?? "")) return set;
      const next = new Set(set);
      next.delete(activeGroup ?? "");
      return next;
    });
  }, [activeId, activeGroup]);
  const toggle = (key: string) =>
    setFolded((set) => {
      const next = new Set(set);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  const unread = useUnread(threads, activeId);
  useListNotices(threads, activeId);

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

      <button
        type="button"
        className="search-button"
        data-testid="open-search"
        aria-keyshortcuts="Control+K Meta+K"
        onClick={() => {
          onNavigate();
          onSearch();
        }}
      >
        <span aria-hidden="true">⌕</span>
        <span className="search-button-label">Search</span>
        <kbd>{SEARCH_KEYS}</kbd>
      </button>

      <button type="button" className="button primary new-thread" data-testid="new-thread" onClick={create} disabled={createThread.isPending}>
        <span aria-hidden="true">+</span> New thread
      </button>
      <NewProject onNavigate={onNavigate} />
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
        <div className="thread-groups" data-testid="thread-list" aria-busy={list.isPending}>
          {groups.length === 1 && groups[0].id === null ? (
            <ul className="thread-list" aria-labelledby="threads-heading">
              <ThreadTree nodes={groups[0].nodes} activeId={activeId} unread={unread} onNavigate={onNavigate} />
            </ul>
          ) : (
            groups.map((g) => {
              const key = g.id ?? "";
              const open = !folded.has(key);
              return (
                <ProjectGroup
                  key={key}
                  id={g.id}
                  name={g.name}
                  count={g.nodes.length}
                  open={open}
                  active={activeProject !== null && activeProject === g.id}
                  onToggle={() => toggle(key)}
                  onNavigate={onNavigate}
                >
                  <ThreadTree nodes={g.nodes} activeId={activeId} unread={unread} onNavigate={onNavigate} />
                </ProjectGroup>
              );
            })
          )}
        </div>
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
      <NotificationToggle />
      <Account />
    </div>
  );
}
