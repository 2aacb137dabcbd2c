// Who is using the app, and what of theirs this browser keeps. The gate asks /api/health who the
// caller is (its `auth`), shows the sign-in form while the API answers 401, and gives the app a
// session: the user's storage, their outbox, and sign-out.

import type { Health } from "@protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { ApiError, authToken, onUnauthorized, request, setAuthToken } from "../api";
import { SignIn } from "../components/SignIn";
import { createOutbox, type Outbox, type OutboxItem } from "../lib/outbox";
import { healthQuery } from "../queries/deployment";
import { forgetLegacyKeys, forgetUser, isUserChange, rememberedUser, rememberUser, userStorage, type UserStorage } from "./userStorage";

export type Auth = Health["auth"];

export interface Session {
  auth: Auth;
  storage: UserStorage;
  outbox: Outbox;
  signOut: () => void;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession() is only for components inside <SessionGate>");
  return session;
}

/**
 * A server that does not report the caller yet (no `auth` in its health) has one user, `local`,
 * who is an admin; a token it accepted shows that it runs in token mode. Without any answer, the
 * app goes on as the user this browser last signed in as.
 */
function authOf(health: Health | undefined, token: string | null): Auth {
  if (health?.auth) return health.auth;
  const userId = health ? "local" : (rememberedUser() ?? "local");
  return { mode: token ? "token" : "none", userId, admin: true };
}

const isUnauthorized = (err: unknown) => err instanceof ApiError && err.status === 401;

/** Before the first request: the token of the user this browser last signed in as. */
export function restoreToken(): void {
  forgetLegacyKeys();
  const user = rememberedUser();
  setAuthToken(user ? userStorage(user).get("token") : null);
}

/** An outbox item through its route: a post, an edit, or a regeneration. */
function postItem({ threadId, content, clientMessageId, attachments, branch }: OutboxItem) {
  if (branch?.regenerate) {
    return request("POST /api/threads/:id/messages/:messageId/regenerate", {
      params: { id: threadId, messageId: branch.messageId },
      body: { clientMessageId },
    });
  }
  const body = { content, clientMessageId, ...(attachments?.length ? { attachments: attachments.map((a) => a.id) } : {}) };
  if (branch) {
    return request("POST /api/threads/:id/messages/:messageId/edit", { params: { id: threadId, messageId: branch.messageId }, body });
  }
  return request("POST /api/threads/:id/messages", { params: { id: threadId }, body });
}

/** The signed-in user's storage and outbox; signing out stops the outbox and empties the storage. */
function startSession(auth: Auth, onSignedOut: () => void): Session {
  const storage = userStorage(auth.userId);
  const outbox = createOutbox({ storage, post: (item) => postItem(item).then((r) => r.message) });
  const signOut = () => {
    outbox.stop();
    storage.clear();
    onSignedOut();
  };
  return { auth, storage, outbox, signOut };
}

export function SessionGate({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [signedOut, setSignedOut] = useState(false);
  /** Counts sign-ins: each starts a new session (a fresh outbox read from the user's storage). */
  const [signIns, setSignIns] = useState(0);
  const health = useQuery({ ...healthQuery, enabled: !signedOut });
  const sessionRef = useRef<Session | null>(null);

  // Without an answer from /api/health (other than a 401), the app still works as the last user.
  const known = health.data !== undefined || (health.isError && !isUnauthorized(health.error));
  const auth = known ? authOf(health.data, authToken()) : null;
  const { mode, userId, admin } = auth ?? {};

  const session = useMemo(() => {
    if (!mode || !userId) return null;
    return startSession({ mode, userId, admin: !!admin }, () => {
      forgetUser();
      setAuthToken(null);
      queryClient.clear();
      setSignedOut(true);
    });
  }, [mode, userId, admin, signIns, queryClient]);

  useEffect(() => {
    sessionRef.current = session;
    if (!session) return;
    rememberUser(session.auth.userId);
    const { outbox } = session;
    outbox.start();
    const onOnline = () => outbox.start();
    window.addEventListener("online", onOnline);
    return () => {
      window.removeEventListener("online", onOnline);
      outbox.stop();
    };
  }, [session]);

  // A refused token (revoked, expired) ends the session; the user's drafts and outbox stay for
  // their next sign-in.
  useEffect(
    () =>
      onUnauthorized(() => {
        sessionRef.current?.outbox.stop();
        const user = rememberedUser();
        if (user) userStorage(user).remove("token");
        setAuthToken(null);
        setSignedOut(true);
      }),
    [],
  );

  // Another tab signed in or out: this one must not go on as the previous user.
  useEffect(() => {
    const onStorage = (e: StorageEvent) => isUserChange(e) && location.reload();
    window.addEventListener("storage", onStorage);
    return () => window.removeEventListener("storage", onStorage);
  }, []);

  const signIn = async (token: string) => {
    setAuthToken(token);
    const answer = await queryClient.fetchQuery({ ...healthQuery, staleTime: 0 });
    const signedIn = authOf(answer, token);
    rememberUser(signedIn.userId);
    userStorage(signedIn.userId).set("token", token);
    // Nothing cached for whoever was here before may show.
    queryClient.clear();
    queryClient.setQueryData(healthQuery.queryKey, answer);
    setSignIns((n) => n + 1);
    setSignedOut(false);
  };

  if (signedOut || isUnauthorized(health.error)) return <SignIn onSubmit={signIn} />;
  if (!session) {
    return (
      <div className="sign-in muted" role="status">
        Loading…
      </div>
    );
  }
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
