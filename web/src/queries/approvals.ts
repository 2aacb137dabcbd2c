// Tool calls waiting for the user (PROTOCOL.md "MCP servers"): the open thread's socket events
// folded into the thread's `pendingApprovals` in the cache (lib/approvals.ts), and the decision.

import type { EventFrame, PendingApproval } from "@protocol";
import { useMutation, type QueryClient } from "@tanstack/react-query";
import { request } from "../api";
import { foldApprovals, touchesApprovals } from "../lib/approvals";
import { updateThread } from "./threads";

/**
 * The thread's pending approvals after `frame`, in the thread's own cache and the list's (the
 * sidebar's badge). `thread:updated` puts the whole thread (threadEvents.ts); folding it here too
 * changes nothing then.
 */
export function cacheApprovalEvent(qc: QueryClient, frame: EventFrame): void {
  if (!touchesApprovals(frame)) return;
  updateThread(qc, frame.data.threadId, (t) => {
    const next = foldApprovals(t.pendingApprovals, frame);
    return next === t.pendingApprovals ? t : { ...t, pendingApprovals: next ? [...next] : next };
  });
}

/**
 * Approve or deny a waiting call. The cache is not touched: `thread:updated` (to every tab) and the
 * call's result take the approval out; a 409 means another tab or the timeout decided first.
 */
export function useDecideApproval(threadId: string) {
  return useMutation({
    mutationFn: ({ approval, approve }: { approval: PendingApproval; approve: boolean }) =>
      request("POST /api/threads/:id/runs/:runId/approvals/:toolUseId", {
        params: { id: threadId, runId: approval.runId, toolUseId: approval.toolUseId },
        body: { approve },
      }),
  });
}
