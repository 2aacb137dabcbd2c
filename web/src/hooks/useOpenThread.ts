// The open thread's own record, beside its messages (useThreadChat): the thread, whether it exists
// for this user, its tool calls waiting for approval, and a change of its model.
import { useMemo } from "react";
import { ApiError, errorText } from "../api";
import { approvalsState } from "../components/approvalsState";
import { usePatchThread } from "../queries/threadMutations";
import { useThread } from "../queries/threads";
import { useThreadTimeZone } from "./useThreadTimeZone";

/** `threadId` null: a new conversation, which has no record yet. `onNotice` hears what failed. */
export function useOpenThread(threadId: string | null, onNotice: (notice: string) => void) {
  const threadQuery = useThread(threadId);
  const thread = threadQuery.data;
  // Another user's thread answers 404 too.
  const missing = threadQuery.error instanceof ApiError && threadQuery.error.status === 404;
  // The thread's own answer (the list's stand-in has no timezone).
  useThreadTimeZone(threadQuery.isPlaceholderData ? undefined : thread);
  const patchThread = usePatchThread();

  // The thread's calls waiting for the user: read with the thread, kept current by its socket's events (queries/approvals.ts).
  const pendingApprovals = thread?.pendingApprovals;
  const approvals = useMemo(() => (threadId ? approvalsState(threadId, pendingApprovals) : null), [threadId, pendingApprovals]);

  const changeModel = async (model: string) => {
    if (!threadId) return;
    try {
      await patchThread.mutateAsync({ id: threadId, model });
    } catch (err) {
      onNotice(`Could not change the model: ${errorText(err)}`);
    }
  };

  return { thread, missing, approvals, changeModel };
}
