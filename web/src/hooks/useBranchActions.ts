// Edits, regenerations and branch switches of the open thread. Edits and regenerations go through the
// outbox (kept and retried like any message, each with its own clientMessageId); the branch shown is
// cut at the message they replace at once, and the server's thread:updated brings the new branch.
import type { Attachment, Message } from "@protocol";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo, useState } from "react";
import { errorText, request } from "../api";
import type { OutboxItem } from "../lib/outbox";
import { putThread } from "../queries/threads";
import { useSession } from "../session/SessionGate";

export interface BranchActions {
  edit: (message: Message, content: string, attachments: Attachment[]) => void;
  regenerate: (answer: Message) => void;
  switchTo: (messageId: string) => Promise<boolean>;
  /** A failed edit or regeneration given up: the branch it replaced comes back. */
  discard: (item: OutboxItem) => void;
  switching: boolean;
  error: string | null;
  clearError: () => void;
}

export function useBranchActions(
  threadId: string | null,
  messages: readonly Message[],
  chat: { cutAt: (messageId: string) => void; reloadBranch: () => Promise<void> },
): BranchActions {
  const { outbox } = useSession();
  const queryClient = useQueryClient();
  const [switching, setSwitching] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { cutAt, reloadBranch } = chat;

  const edit = useCallback(
    (message: Message, content: string, attachments: Attachment[]) => {
      if (!threadId) return;
      setError(null);
      cutAt(message.id);
      outbox.enqueue(threadId, content, { attachments, branch: { messageId: message.id } });
    },
    [threadId, cutAt, outbox],
  );

  const regenerate = useCallback(
    (answer: Message) => {
      if (!threadId) return;
      setError(null);
      // The new version repeats the question: shown as pending until the server has it.
      const question = messages.find((m) => m.id === answer.parentId);
      if (question) cutAt(question.id);
      outbox.enqueue(threadId, question?.content ?? "", {
        attachments: question?.attachments,
        branch: { messageId: answer.id, regenerate: true },
      });
    },
    [threadId, messages, cutAt, outbox],
  );

  const switchTo = useCallback(
    async (messageId: string) => {
      if (!threadId) return false;
      setError(null);
      setSwitching(true);
      try {
        const { thread } = await request("PUT /api/threads/:id/head", { params: { id: threadId }, body: { messageId } });
        putThread(queryClient, thread);
        // thread:updated brings the branch too; reading it makes this tab independent of its socket.
        await reloadBranch();
        return true;
      } catch (err) {
        setError(`Could not switch to that version: ${errorText(err)}`);
        return false;
      } finally {
        setSwitching(false);
      }
    },
    [threadId, queryClient, reloadBranch],
  );

  const discard = useCallback(
    (item: OutboxItem) => {
      outbox.discard(item.clientMessageId);
      if (item.branch) void reloadBranch().catch(() => {});
    },
    [outbox, reloadBranch],
  );

  const clearError = useCallback(() => setError(null), []);

  return useMemo(
    () => ({ edit, regenerate, switchTo, discard, switching, error, clearError }),
    [edit, regenerate, switchTo, discard, switching, error, clearError],
  );
}
