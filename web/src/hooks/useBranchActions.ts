// Edits, regenerations and branch switches of the open thread. Edits and regenerations go through the
// outbox (kept and retried like any message, each with its own clientMessageId); the branch shown is
// cut at the message they replace at once, and the server's thread:updated brings the new branch.
import type { Attachment, Message } from "@protocol";
import { useCallback, useMemo } from "react";
import { errorText } from "../api";
import type { OutboxItem } from "../lib/outbox";
import { useSwitchBranch } from "../queries/messages";
import { useSession } from "../session/SessionGate";

export interface BranchActions {
  edit: (message: Message, content: string, attachments: Attachment[]) => void;
  regenerate: (answer: Message) => void;
  switchTo: (messageId: string) => Promise<boolean>;
  /** A failed edit or regeneration given up: the branch it replaced comes back. */
  discard: (item: OutboxItem) => void;
  switching: boolean;
  error: string | null;
}

export function useBranchActions(
  threadId: string | null,
  messages: readonly Message[],
  chat: { cutAt: (messageId: string) => void; showBranch: (messages: Message[]) => void; reloadBranch: () => Promise<void> },
): BranchActions {
  const { outbox } = useSession();
  const { cutAt, showBranch, reloadBranch } = chat;
  const { mutateAsync: switchBranch, reset: clearError, isPending: switching, error: switchError } = useSwitchBranch(showBranch);

  const edit = useCallback(
    (message: Message, content: string, attachments: Attachment[]) => {
      if (!threadId) return;
      clearError();
      cutAt(message.id);
      outbox.enqueue(threadId, content, { attachments, branch: { messageId: message.id } });
    },
    [threadId, cutAt, outbox, clearError],
  );

  const regenerate = useCallback(
    (answer: Message) => {
      if (!threadId) return;
      clearError();
      // The new version repeats the question: shown as pending until the server has it.
      const question = messages.find((m) => m.id === answer.parentId);
      if (question) cutAt(question.id);
      outbox.enqueue(threadId, question?.content ?? "", {
        attachments: question?.attachments,
        branch: { messageId: answer.id, regenerate: true },
      });
    },
    [threadId, messages, cutAt, outbox, clearError],
  );

  const switchTo = useCallback(
    (messageId: string) =>
      threadId
        ? switchBranch({ threadId, messageId }).then(
            () => true,
            () => false,
          )
        : Promise.resolve(false),
    [threadId, switchBranch],
  );

  const discard = useCallback(
    (item: OutboxItem) => {
      outbox.discard(item.clientMessageId);
      if (item.branch) void reloadBranch().catch(() => {});
    },
    [outbox, reloadBranch],
  );

  const error = switchError ? `Could not switch to that version: ${errorText(switchError)}` : null;
  return useMemo(
    () => ({ edit, regenerate, switchTo, discard, switching, error }),
    [edit, regenerate, switchTo, discard, switching, error],
  );
}
