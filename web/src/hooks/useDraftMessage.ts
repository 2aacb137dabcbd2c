// The message being written in the open thread, or in a new conversation: its text (kept as a draft
// across reloads), its files (uploaded as they are added), and sending them.
import { useCallback, useRef } from "react";
import { errorText } from "../api";
import { navigate, threadPath } from "../lib/router";
import { useSendMessage } from "../queries/messages";
import { useCreateThread } from "../queries/threadMutations";
import { useSession } from "../session/SessionGate";
import { clearDraft, useDraft } from "./useDraft";
import { useUploads } from "./useUploads";

/** `onNotice` hears what failed, and null when the next send starts. */
export function useDraftMessage(threadId: string | null, onNotice: (notice: string | null) => void) {
  const { storage } = useSession();
  const { mutateAsync: createThread } = useCreateThread();
  const [draft, setDraft] = useDraft(threadId);

  // A new conversation's files need a thread to go to: the first file creates it (unnamed, so that
  // the server names it from the first exchange), and the first message goes there too; a message
  // sent first creates it with its `name`.
  const draftThread = useRef<Promise<string> | null>(null);
  const threadFor = useCallback(
    async (name?: string) => {
      if (threadId) return threadId;
      draftThread.current ??= createThread(name ? { name } : {}).then((t) => t.id);
      return draftThread.current.catch((err) => {
        draftThread.current = null;
        throw err;
      });
    },
    [threadId, createThread],
  );
  const files = useUploads(threadFor);
  const { mutateAsync: sendMessage, isPending: sending } = useSendMessage(threadFor);

  /** What went (a message, or a research question) leaves the box; a new conversation's opens its thread. */
  const sent = useCallback(
    (id: string) => {
      if (threadId) {
        setDraft("");
      } else {
        clearDraft(storage, null);
        navigate(threadPath(id));
      }
    },
    [threadId, setDraft, storage],
  );

  const send = useCallback(
    async (content: string) => {
      // A new conversation's first message goes once, even when Enter is pressed again while its
      // thread is being made.
      if (!threadId && sending) return;
      onNotice(null);
      try {
        const id = await sendMessage({ content, attachments: files.summary.attachments });
        files.clear();
        sent(id);
      } catch (err) {
        onNotice(`Could not create a thread: ${errorText(err)}`);
      }
    },
    [threadId, sending, sendMessage, sent, files, onNotice],
  );

  return { draft, setDraft, files, send, threadFor, sent };
}
