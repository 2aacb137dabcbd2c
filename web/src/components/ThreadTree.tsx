import type { Thread } from "@protocol";
import { ThreadRow } from "./ThreadRow";

interface Node {
  thread: Thread;
  children: Node[];
  /** Newest activity in the subtree: a busy task lifts its parent. */
  latest: number;
}

/** Task threads nest under their parent (when the parent is listed); newest activity first. */
export function buildTree(threads: Thread[]): Node[] {
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

export function ThreadTree({
  nodes,
  activeId,
  unread,
  onNavigate,
}: {
  nodes: Node[];
  activeId: string | null;
  unread: ReadonlySet<string>;
  onNavigate: () => void;
}) {
  return (
    <>
      {nodes.map((n) => (
        <li key={n.thread.id}>
          <ThreadRow thread={n.thread} active={n.thread.id === activeId} unread={unread.has(n.thread.id)} onNavigate={onNavigate} />
          {n.children.length > 0 && (
            <ul className="thread-children" aria-label={`Tasks of ${n.thread.name}`}>
              <ThreadTree nodes={n.children} activeId={activeId} unread={unread} onNavigate={onNavigate} />
            </ul>
          )}
        </li>
      ))}
    </>
  );
}
