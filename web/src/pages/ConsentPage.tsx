import { useEffect, useState } from "react";
import { errorText, request } from "../api";
import { accessOf, authorizationRequest, leavingFor, NO_REQUEST, viewOf, type ConsentView } from "../lib/oauthConsent";
import { useSession } from "../session/SessionGate";

/**
 * The authorization endpoint (/oauth/authorize): an app (an MCP client such as Claude or ChatGPT) asks
 * to use the MCP server as the signed-in user. The page shows who asks, where the access goes and what
 * it reaches; Allow and Deny post the decision (the server completes the authorization) and the
 * browser goes where the answer says: back to the app, with a code or with access_denied.
 */
export default function ConsentPage() {
  const { auth } = useSession();
  const [authRequest] = useState(() => authorizationRequest(location.search));
  const [view, setView] = useState<ConsentView>(authRequest ? { step: "loading" } : { step: "error", message: NO_REQUEST });
  /** Shows the next view; leaving, the browser goes back to the app (a navigation, which the CSP allows). */
  const follow = (next: ConsentView) => {
    setView(next);
    if (next.step === "leaving") location.assign(next.href);
  };

  useEffect(() => {
    document.title = "Connect an app";
    if (!authRequest) return;
    const abort = new AbortController();
    request("GET /api/oauth/authorize", { query: { request: authRequest }, signal: abort.signal })
      .then((answer) => follow(viewOf(answer)))
      .catch((err) => !abort.signal.aborted && setView({ step: "error", message: errorText(err) }));
    return () => abort.abort();
  }, [authRequest]);

  const decide = async (allow: boolean) => {
    if (view.step !== "ask" || !authRequest) return;
    setView({ ...view, busy: true });
    try {
      const { redirectTo } = await request("POST /api/oauth/authorize", { body: { request: authRequest, allow } });
      follow(leavingFor(redirectTo));
    } catch (err) {
      setView({ step: "error", message: errorText(err) });
    }
  };

  return (
    <main id="main" className="sign-in">
      <section className="sign-in-card consent-card" data-testid="oauth-consent" data-step={view.step} aria-labelledby="consent-title">
        {view.step === "ask" ? (
          <>
            <h1 id="consent-title">
              Connect <span className="consent-client" data-testid="consent-client">{view.consent.clientName}</span>?
            </h1>
            <p className="muted">
              It asks to use this app as <strong data-testid="consent-user">{auth.userId}</strong>. It will be able to:
            </p>
            <ul className="consent-access" data-testid="consent-access">
              {accessOf(view.consent.scope).map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
            <p>
              Access goes to <strong data-testid="consent-redirect-host">{view.consent.redirectHost}</strong>.
            </p>
            {view.consent.redirectIsLoopback && (
              <p className="consent-warning" role="note" data-testid="consent-loopback">
                That is an app on your computer. Allow it only if you just started connecting from it.
              </p>
            )}
            <p className="muted small">The app gave itself this name; it is not verified. Allow only an app you are connecting now.</p>
            <div className="consent-actions">
              <button type="button" className="button" data-testid="consent-deny" disabled={view.busy} onClick={() => void decide(false)}>
                Deny
              </button>
              <button type="button" className="button primary" data-testid="consent-allow" disabled={view.busy} onClick={() => void decide(true)}>
                Allow
              </button>
            </div>
          </>
        ) : (
          <>
            <h1 id="consent-title">Connect an app</h1>
            {view.step === "loading" && (
              <p className="muted" role="status">
                Loading…
              </p>
            )}
            {view.step === "leaving" && (
              <p className="muted" role="status" data-testid="consent-leaving">
                Returning to {view.host}…
              </p>
            )}
            {view.step === "error" && (
              <p className="error-text" role="alert" data-testid="consent-error">
                {view.message}
              </p>
            )}
          </>
        )}
      </section>
    </main>
  );
}
