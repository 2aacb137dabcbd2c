// What a message in the open thread can do (edit, regenerate, switch versions, open its files),
// given by ChatView through context so that memoized messages need no new props.
import type { Attachment, Message } from "@protocol";
import { createContext, useContext } from "react";
import type { OutboxItem } from "../lib/outbox";

export interface ChatActions {
  threadId: string;
  /** A reply is running or a branch switch is under way: edits, regenerations and switches wait. */
  busy: boolean;
  /** The user message whose inline editor is open. */
  editingId: string | null;
  setEditingId: (id: string | null) => void;
  edit: (message: Message, content: string, attachments: Attachment[]) => void;
  regenerate: (answer: Message) => void;
  switchTo: (messageId: string) => void;
  discard: (item: OutboxItem) => void;
}

export const ChatActionsContext = createContext<ChatActions | null>(null);

/** The open thread's actions; null outside a thread (nothing to edit there). */
export const useChatActions = () => useContext(ChatActionsContext);
