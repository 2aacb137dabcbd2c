// The URLs a thread's socket opens with. Every attempt (the first, and each reconnect) takes a fresh
// one-use ticket from POST /api/ws-ticket, so no credential is ever in a URL, and a ticket that
// leaked opens nothing. partysocket asks for the URL at each attempt and retries, with its backoff,
// when asking fails.
//
// The server closes a socket whose credential expired with code 4001. The next attempt then asks
// GET /api/health first: a 401 there shows the sign-in state (api.ts tells the session gate, which
// unmounts the thread and so its socket); an answer means the user is still signed in, and the
// socket reconnects with a fresh ticket.

import { CREDENTIAL_EXPIRED } from "@protocol";
import { request, threadSocketUrl } from "../api";

export interface SocketUrls {
  /** The URL for the next attempt: a fresh ticket, and `since` as it is once the ticket is in hand. */
  next(): Promise<string>;
  /** Tells of a close: after a 4001, the next attempt checks that the user is still signed in. */
  closed(code: number): void;
}

export function ticketedSocketUrls(threadId: string, since: () => number | null, signal?: AbortSignal): SocketUrls {
  let checkSignIn = false;
  return {
    async next() {
      if (checkSignIn) {
        await request("GET /api/health", { signal });
        checkSignIn = false;
      }
      const { ticket } = await request("POST /api/ws-ticket", { body: { threadId }, signal });
      return threadSocketUrl(threadId, ticket, since());
    },
    closed(code) {
      if (code === CREDENTIAL_EXPIRED) checkSignIn = true;
    },
  };
}
