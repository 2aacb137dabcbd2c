// A thread's messages over HTTP: a page of its current branch, a switch to another branch, and
// sending. The chat state itself is not in the query cache: the socket keeps it (lib/threadSync.ts).

import { MESSAGE_PAGE, type Attachment, type Message } from "@protocol";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { request } from "../api";
import { useSession } from "../session/SessionGate";
import { putThread } from "./threads";

/** The newest page of the thread's current branch, or the page before message `before`. */
export const listMessages = (threadId: string, before?: string, signal?: AbortSignal) =>
  request("GET /api/threads/:id/messages", { params: { id: threadId }, query: { limit: MESSAGE_PAGE, before }, signal });

/** Shows another version of a message: the thread's head moves to it, then `show` gets its branch. */
export function useSwitchBranch(show: (messages: Message[]) => void) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ threadId, messageId }: { threadId: string; messageId: string }) => {
      const { thread } = await request("PUT /api/threads/:id/head", { params: { id: threadId }, body: { messageId } });
      putThread(qc, thread);
      // thread:updated brings the branch too; reading it makes this tab independent of its socket.
      return (await listMessages(threadId)).messages;
    },
    onSuccess: show,
  });
}

/** A name for a thread created by its first message (or its first research question). */
export function nameFrom(content: string): string {
  const line = content.trim().split("\n")[0].replace(/\s+/g, " ");
  return line.length > 48 ? line.slice(0, 47) + "…" : line || "New thread";
}

/**
 * Sends a message to the thread `threadFor` gives (it creates one, named after the message, for a
 * new conversation), through the outbox, which posts it and retries until the server has it.
 * Answers the thread's id.
 */
export function useSendMessage(threadFor: (name: string) => Promise<string>) {
  const { outbox } = useSession();
  return useMutation({
    mutationFn: async ({ content, attachments }: { content: string; attachments: Attachment[] }) => {
      const threadId = await threadFor(nameFrom(content));
      outbox.enqueue(threadId, content, { attachments });
      return threadId;
    },
  });
}
