// The sidebar's threads by project: one group per project (by name, empty ones too, so that a new
// project shows), then threads of a project this page does not know (yet), then "No project" last.
// A task thread goes where its parent's tree is (buildTree nests it first), whatever its own projectId.

import type { Project, Thread } from "@protocol";

export interface ProjectGroup<N> {
  /** The project's id; null for "No project". */
  id: string | null;
  name: string;
  project: Project | null;
  nodes: N[];
  /** Newest activity among the group's threads (0 when it has none). */
  latest: number;
}

export const NO_PROJECT = "No project";

/** Groups trees (roots of buildTree, newest first) by their root thread's project, keeping their order. */
export function groupByProject<N extends { thread: Thread; latest: number }>(roots: readonly N[], projects: readonly Project[]): ProjectGroup<N>[] {
  const known = new Map(projects.map((p) => [p.id, p]));
  const groups = new Map<string, ProjectGroup<N>>();
  for (const p of [...projects].sort((a, b) => a.name.localeCompare(b.name) || a.createdAt - b.createdAt)) {
    groups.set(p.id, { id: p.id, name: p.name, project: p, nodes: [], latest: 0 });
  }
  const unknown = new Map<string, ProjectGroup<N>>();
  const none: ProjectGroup<N> = { id: null, name: NO_PROJECT, project: null, nodes: [], latest: 0 };
  for (const node of roots) {
    const id = node.thread.projectId ?? null;
    let group = id === null ? none : (groups.get(id) ?? unknown.get(id));
    if (!group && id !== null) {
      group = { id, name: known.get(id)?.name ?? "Project", project: null, nodes: [], latest: 0 };
      unknown.set(id, group);
    }
    group!.nodes.push(node);
    group!.latest = Math.max(group!.latest, node.latest);
  }
  return [...groups.values(), ...unknown.values(), ...(none.nodes.length ? [none] : [])];
}

/** The group a thread's row is in (its tree's root's project), for opening it when the thread is shown. */
export function groupOfThread(groups: readonly ProjectGroup<{ thread: Thread; children: unknown[] }>[], threadId: string | null): string | null | undefined {
  if (!threadId) return undefined;
  const holds = (node: { thread: Thread; children: unknown[] }): boolean =>
    node.thread.id === threadId || (node.children as { thread: Thread; children: unknown[] }[]).some(holds);
  return groups.find((g) => g.nodes.some(holds))?.id;
}
