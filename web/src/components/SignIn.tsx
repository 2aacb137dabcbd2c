import { useState, type FormEvent } from "react";
import { ApiError, errorText } from "../api";

interface SignInProps {
  mode: "none" | "token" | "access";
  /** The server stopped accepting the credential of a session that was running (not a sign-out). */
  refused: boolean;
  onSubmit: (token: string) => Promise<void>;
}

/**
 * Shown while the API answers 401. Token mode asks for a token, which `onSubmit` tries; an ended
 * Access session is renewed by loading the page again, which Access sends through its own sign-in.
 */
export function SignIn({ mode, refused, onSubmit }: SignInProps) {
  return mode === "access" ? <AccessSignIn /> : <TokenSignIn refused={refused} onSubmit={onSubmit} />;
}

function AccessSignIn() {
  return (
    <main className="sign-in">
      <div className="sign-in-card" data-testid="sign-in" data-mode="access">
        <h1>Signed out</h1>
        <p className="muted">Your sign-in to this deployment has ended.</p>
        <button type="button" className="button primary" data-testid="sign-in-again" onClick={() => location.reload()}>
          Sign in again
        </button>
      </div>
    </main>
  );
}

function TokenSignIn({ refused, onSubmit }: Omit<SignInProps, "mode">) {
  const [token, setValue] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!token.trim()) return;
    setBusy(true);
    setError(null);
    try {
      await onSubmit(token.trim());
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? "That token was not accepted." : errorText(err));
      setBusy(false);
    }
  };

  return (
    <main className="sign-in">
      <form className="sign-in-card" onSubmit={(e) => void submit(e)} data-testid="sign-in">
        <h1>Sign in</h1>
        <p className="muted" data-testid="sign-in-reason">
          {refused ? "Your token is no longer accepted. Sign in again to go on." : "This deployment needs an access token."}
        </p>
        <label htmlFor="token-input">Token</label>
        <input
          id="token-input"
          data-testid="token-input"
          type="password"
          autoComplete="current-password"
          autoFocus
          value={token}
          onChange={(e) => setValue(e.target.value)}
          aria-invalid={!!error || undefined}
          aria-describedby={error ? "sign-in-error" : undefined}
        />
        {error && (
          <p id="sign-in-error" className="error-text small" role="alert" data-testid="sign-in-error">
            {error}
          </p>
        )}
        <button type="submit" className="button primary" data-testid="sign-in-submit" disabled={busy || !token.trim()}>
          {busy ? "Signing in…" : "Continue"}
        </button>
      </form>
    </main>
  );
}
