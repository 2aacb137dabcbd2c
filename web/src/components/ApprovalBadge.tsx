import type { Thread } from "@protocol";

/**
 * A thread's tool calls waiting for the user, in the sidebar (inside its link, beside the unread dot):
 * the link's accessible name says so too, with how many.
 */
export function ApprovalBadge({ thread }: { thread: Thread }) {
  const waiting = thread.pendingApprovals?.length ?? 0;
  if (waiting === 0) return null;
  return (
    <span className="approval-badge" data-testid="approval-badge" title="A tool call is waiting for your approval">
      <span className="visually-hidden">, </span>Needs approval
      <span className="visually-hidden">: {waiting === 1 ? "1 tool call waits" : `${waiting} tool calls wait`} for you</span>
    </span>
  );
}
