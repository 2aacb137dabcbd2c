// Who is using the app, and what of theirs this browser keeps. The gate asks /api/health who the
// caller is (its `auth`), shows the sign-in state while the API answers 401, and gives the app a
// session: the user's storage, their outbox (and the open threads' sockets it sends over), and sign-out (token and Access modes; `none` has no
// sign-in, so nothing to sign out of).

import type { Health } from "@protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { ApiError, authToken, onUnauthorized, request, setAuthToken } from "../api";
import { SignIn } from "../components/SignIn";
import { OpenSockets, socketFirst } from "../lib/messageTransport";
import { createOutbox, type Outbox, type OutboxItem } from "../lib/outbox";
import { healthQuery } from "../queries/deployment";
import { forgetLegacyKeys, forgetUser, isUserChange, rememberedUser, rememberUser, userStorage, type UserStorage } from "./userStorage";

export type Auth = Health["auth"];

export interface Session {
  auth: Auth;
  storage: UserStorage;
  outbox: Outbox;
  /** The threads whose chat is open register their socket here: the outbox sends over it. */
  sockets: OpenSockets;
  /** Null in `none` mode: there is no sign-in. */
  signOut: (() => void) | null;
}

/** Cloudflare Access ends its session here, then shows its own signed-out page. */
export const ACCESS_LOGOUT = "/cdn-cgi/access/logout";

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession() is only for components inside <SessionGate>");
  return session;
}

/**
 * The caller as /api/health reports them. Without an answer (offline, a 5xx) the app goes on as the
 * user this browser last signed in as, so that their drafts and outbox stay theirs; whether they are
 * an admin is unknown then, so they are not.
 */
function authOf(health: Health | undefined, token: string | null): Auth {
  if (health) return health.auth;
  return { mode: token ? "token" : "none", userId: rememberedUser() ?? "local", admin: false };
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
function startSession(userId: string, mode: Auth["mode"], onSignedOut: () => void): Omit<Session, "auth"> {
  const storage = userStorage(userId);
  const sockets = new OpenSockets();
  const outbox = createOutbox({ storage, deliver: socketFirst(sockets, (item) => postItem(item).then((r) => r.message)) });
  const signOut = () => {
    outbox.stop();
    storage.clear();
    forgetUser();
    setAuthToken(null);
    // Access holds the sign-in in its own cookie: only its logout ends it (and then shows its page).
    if (mode === "access") location.assign(ACCESS_LOGOUT);
    else onSignedOut();
  };
  return { storage, outbox, sockets, signOut: mode === "none" ? null : signOut };
}

export function SessionGate({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  /** Set when a session ended: its mode, and whether the server refused its credential (not a sign-out). */
  const [signedOut, setSignedOut] = useState<{ mode: Auth["mode"]; refused: boolean } | null>(null);
  /** Counts sign-ins: each starts a new session (a fresh outbox read from the user's storage). */
  const [signIns, setSignIns] = useState(0);
  const health = useQuery({ ...healthQuery, enabled: signedOut === null });
  const sessionRef = useRef<Session | null>(null);

  // Without an answer from /api/health (other than a 401), the app still works as the last user.
  const known = health.data !== undefined || (health.isError && !isUnauthorized(health.error));
  const auth = known ? authOf(health.data, authToken()) : null;
  const { mode, userId, admin } = auth ?? {};

  // A new session (a fresh outbox read from the user's storage) per user and sign-in; a change of
  // `admin` alone (the health answer arrives after an offline start) keeps the outbox running.
  const started = useMemo(() => {
    if (!mode || !userId) return null;
    return startSession(userId, mode, () => {
      queryClient.clear();
      setSignedOut({ mode, refused: false });
    });
  }, [mode, userId, signIns, queryClient]);
  const session = useMemo(
    () => (started && mode && userId ? { ...started, auth: { mode, userId, admin: !!admin } } : null),
    [started, mode, userId, admin],
  );

  useEffect(() => {
    sessionRef.current = session;
  }, [session]);

  useEffect(() => {
    if (!started || !userId) return;
    rememberUser(userId);
    const { outbox } = started;
    outbox.start();
    const onOnline = () => outbox.start();
    window.addEventListener("online", onOnline);
    return () => {
      window.removeEventListener("online", onOnline);
      outbox.stop();
    };
  }, [started, userId]);

  // A refused credential (a revoked token, an expired Access session) ends the session; the user's
  // drafts and outbox stay for their next sign-in.
  useEffect(
    () =>
      onUnauthorized(() => {
        sessionRef.current?.outbox.stop();
        const user = rememberedUser();
        if (user) userStorage(user).remove("token");
        setAuthToken(null);
        setSignedOut({ mode: sessionRef.current?.auth.mode ?? "token", refused: !!sessionRef.current });
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
    setSignedOut(null);
  };

  if (signedOut !== null || isUnauthorized(health.error)) {
    return <SignIn mode={signedOut?.mode ?? "token"} refused={!!signedOut?.refused} onSubmit={signIn} />;
  }
  if (!session) {
    return (
      <div className="sign-in muted" role="status">
        Loading…
      </div>
    );
  }
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
