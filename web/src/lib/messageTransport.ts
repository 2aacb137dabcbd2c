// How an outbox item reaches the server: over its thread's socket when this tab has it open, by POST
// otherwise. Both carry the item's clientMessageId, which the server honours across the two paths,
// so a send whose answer never came is posted again without any risk of a second message.

import type { Message, SendFrame } from "@protocol";
import type { OutboxItem } from "./outbox";
import { NotDelivered, type SendAnswer } from "./socketSends";

/** Sends a message over one thread's socket (ThreadSync.deliver). */
export type SocketSend = (frame: SendFrame) => Promise<SendAnswer>;

/** The threads whose socket this tab holds (their chat is open). */
export class OpenSockets {
  readonly #byThread = new Map<string, SocketSend>();

  /** Until the function returned is called. */
  add(threadId: string, send: SocketSend): () => void {
    this.#byThread.set(threadId, send);
    return () => {
      // A later view of the same thread may have taken the place already.
      if (this.#byThread.get(threadId) === send) this.#byThread.delete(threadId);
    };
  }

  get(threadId: string): SocketSend | undefined {
    return this.#byThread.get(threadId);
  }
}

const frameOf = ({ content, clientMessageId, attachments }: OutboxItem): SendFrame => ({
  type: "send",
  content,
  clientMessageId,
  ...(attachments?.length ? { attachments: attachments.map((a) => a.id) } : {}),
});

/**
 * The outbox's delivery: the socket first, then `post` (with the same item) when the socket did not
 * deliver. A refusal on the socket is final, as POST's would be. Edits and regenerations have no
 * frame: they are posted.
 */
export function socketFirst(sockets: OpenSockets, post: (item: OutboxItem) => Promise<Message>) {
  return async (item: OutboxItem): Promise<Message> => {
    const send = item.branch ? undefined : sockets.get(item.threadId);
    if (send) {
      try {
        return (await send(frameOf(item))).message;
      } catch (err) {
        if (!(err instanceof NotDelivered)) throw err;
      }
    }
    return post(item);
  };
}
