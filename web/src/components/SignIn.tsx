import { useState, type FormEvent } from "react";

/** Shown when the API answers 401 (AUTH_MODE=token): asks for a token and keeps it in localStorage. */
export function SignIn({ onSignedIn }: { onSignedIn: (token: string) => void }) {
  const [token, setValue] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!token.trim()) return;
    onSignedIn(token.trim());
  };
  return (
    <div className="sign-in">
      <form className="sign-in-card" onSubmit={submit} data-testid="sign-in">
        <h1>Sign in</h1>
        <p className="muted">This deployment needs an access token.</p>
        <label htmlFor="token-input">Token</label>
        <input
          id="token-input"
          data-testid="token-input"
          type="password"
          autoComplete="current-password"
          autoFocus
          value={token}
          onChange={(e) => setValue(e.target.value)}
        />
        <button type="submit" className="button primary" data-testid="sign-in-submit" disabled={!token.trim()}>
          Continue
        </button>
      </form>
    </div>
  );
}
