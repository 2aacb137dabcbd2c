// Messages sent as `send` frames on a thread's socket, each waiting for the answer that names its
// clientMessageId. The socket answers a send on that socket only: once it closes, or stays silent
// too long, the answer may never come, and the send is "not delivered". The message may be stored
// all the same; POST with the same clientMessageId settles it either way (the server answers the
// stored message rather than storing it twice).

import { API_ERROR_STATUS, type ApiErrorCode, type SocketFrameMap } from "@protocol";
import { apiErrorOf } from "../api";

export type SendAnswer = SocketFrameMap["accepted"];

/** The socket path could not tell whether the message was stored: send it again by POST. */
export class NotDelivered extends Error {
  override readonly name = "NotDelivered";
}

/** Long enough for a busy object's answer; short enough that a dead socket does not hold a message up. */
export const SEND_ANSWER_MS = 5_000;

interface Waiting {
  resolve(answer: SendAnswer): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

const isApiCode = (code: string): code is ApiErrorCode => Object.hasOwn(API_ERROR_STATUS, code);

export class PendingSends {
  readonly #waiting = new Map<string, Waiting>();

  /** The answer to the send with this clientMessageId, from now on. */
  wait(clientMessageId: string): Promise<SendAnswer> {
    this.#settle(clientMessageId)?.reject(new NotDelivered("sent again"));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.#settle(clientMessageId)?.reject(new NotDelivered("no answer")), SEND_ANSWER_MS);
      this.#waiting.set(clientMessageId, { resolve, reject, timer });
    });
  }

  accepted(answer: SendAnswer): void {
    this.#settle(answer.clientMessageId)?.resolve(answer);
  }

  /**
   * A refusal is the error POST would have raised (its status, code and Retry-After), so the outbox
   * treats it exactly as it treats POST's. A code POST has not (a frame the server could not read)
   * says nothing of the message: POST decides.
   */
  refused({ code, message, clientMessageId, retryAfter }: SocketFrameMap["error"]): void {
    const waiting = clientMessageId === undefined ? undefined : this.#settle(clientMessageId);
    if (!waiting) return;
    if (!isApiCode(code)) return waiting.reject(new NotDelivered(message));
    waiting.reject(apiErrorOf(API_ERROR_STATUS[code], { error: { code, message } }, retryAfter === undefined ? null : String(retryAfter)));
  }

  /** The socket closed: no answer will come on it. */
  dropAll(): void {
    for (const id of [...this.#waiting.keys()]) this.#settle(id)?.reject(new NotDelivered("socket closed"));
  }

  #settle(clientMessageId: string): Waiting | undefined {
    const waiting = this.#waiting.get(clientMessageId);
    if (!waiting) return undefined;
    clearTimeout(waiting.timer);
    this.#waiting.delete(clientMessageId);
    return waiting;
  }
}
