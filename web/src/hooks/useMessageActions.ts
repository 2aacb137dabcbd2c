// What the open thread's messages can do (ChatActionsContext: edit, regenerate, switch versions,
// give up a failed edit), and which message's editor is open.
import type { Message } from "@protocol";
import { useCallback, useMemo, useState } from "react";
import type { ChatActions } from "../components/chatActions";
import { lastUserMessage } from "../lib/branches";
import type { BranchActions } from "./useBranchActions";

/** `busy`: a reply runs or a branch switch is under way, and edits wait. */
export function useMessageActions(threadId: string | null, busy: boolean, messages: readonly Message[], branches: BranchActions) {
  const [editingId, setEditingId] = useState<string | null>(null);

  const actions = useMemo<ChatActions | null>(
    () =>
      threadId
        ? {
            threadId,
            busy,
            editingId,
            setEditingId,
            edit: branches.edit,
            regenerate: branches.regenerate,
            switchTo: (id) => {
              setEditingId(null);
              void branches.switchTo(id);
            },
            discard: branches.discard,
          }
        : null,
    [threadId, busy, editingId, branches],
  );

  // The Up arrow in an empty composer edits the last message (as in other chat apps).
  const editLast = useCallback(() => {
    const last = lastUserMessage(messages);
    if (!threadId || busy || !last) return false;
    setEditingId(last.id);
    return true;
  }, [threadId, busy, messages]);

  return { actions, editLast };
}
