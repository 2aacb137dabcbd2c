// Branches of a conversation as the web shows them: a user message's versions (its siblings, from
// edits and regenerations), the message the Up arrow edits, and the branch a search hit lives on.
import type { Message, Role } from "@protocol";

export interface SiblingPosition {
  /** 0-based place of the message among its versions, oldest first. */
  index: number;
  count: number;
  previous: string | null;
  next: string | null;
}

/** Where a user message stands among its versions; null when it has no other version. */
export function siblingPosition(message: Pick<Message, "id" | "siblings">): SiblingPosition | null {
  const siblings = message.siblings ?? [];
  const index = siblings.indexOf(message.id);
  if (siblings.length < 2 || index < 0) return null;
  return {
    index,
    count: siblings.length,
    previous: index > 0 ? siblings[index - 1] : null,
    next: index < siblings.length - 1 ? siblings[index + 1] : null,
  };
}

/** A user text message: the kind that can be edited, regenerated and switched between. */
export const isUserText = (m: Message) => m.role === "user" && m.kind === "text";

/** The newest user message of the branch shown (the Up arrow in an empty composer edits it). */
export function lastUserMessage(messages: readonly Message[]): Message | null {
  for (let i = messages.length - 1; i >= 0; i--) if (isUserText(messages[i])) return messages[i];
  return null;
}

/**
 * The user message whose branch holds a message: a user message is its own; any other message
 * belongs to the exchange of the user message it answers (its parentId).
 */
export function branchOf(hit: { messageId: string; role: Role; parentId: string | null }): string | null {
  return hit.role === "user" ? hit.messageId : hit.parentId;
}

/**
 * Could a message that is not among `messages` (the newest part of the branch shown) still be on
 * that branch? Only when older messages remain to be loaded and it is not newer than all of those
 * held (the list is in creation order).
 */
export function mayBeOlderOnBranch(createdAt: number, messages: readonly Message[], hasOlder: boolean): boolean {
  if (!hasOlder) return false;
  const oldest = messages[0];
  return !oldest || createdAt <= oldest.createdAt;
}
