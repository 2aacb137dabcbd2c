import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { errorText } from "../api";
import { useListNotices } from "../hooks/useNotifications";
import { useUnread } from "../hooks/useUnread";
import { groupByProject, groupOfThread } from "../lib/projectGroups";
import { projectsQuery } from "../queries/projects";
import { useThreadList } from "../queries/threads";
import { ProjectGroup } from "./ProjectGroup";
import { buildTree, ThreadTree } from "./ThreadTree";

/** Groups folded by the user (by project id, "" for No project); opening a thread unfolds its group. */
function useFoldedGroups(activeGroup: string | null | undefined, activeId: string | null) {
  const [folded, setFolded] = useState<ReadonlySet<string>>(() => new Set());
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
  return { folded, toggle };
}

/**
 * The sidebar's threads, grouped by project (one flat list while there are no projects), with task
 * threads under their parent; archived ones on demand, more pages on demand.
 */
export function SidebarThreads({ activeId, activeProject, onNavigate }: { activeId: string | null; activeProject: string | null; onNavigate: () => void }) {
  const [showArchived, setShowArchived] = useState(false);
  const { threads, list } = useThreadList(showArchived);
  const tree = useMemo(() => buildTree(threads), [threads]);
  const projects = useQuery(projectsQuery).data;
  const groups = useMemo(() => groupByProject(tree, projects ?? []), [tree, projects]);
  const { folded, toggle } = useFoldedGroups(groupOfThread(groups, activeId), activeId);
  const unread = useUnread(threads, activeId);
  useListNotices(threads, activeId);

  return (
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
  );
}
