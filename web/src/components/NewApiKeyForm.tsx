import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { isKeyLimit, KEY_LIMIT_TEXT, keyNameProblem } from "../lib/apiKeys";
import { ErrorDetails } from "./ErrorDetails";

/**
 * A key's name and "Create key". The name is checked as the server checks it before it is sent; what
 * the server refuses is said under the form (past the key limit, in plain words).
 */
export function NewApiKeyForm({
  creating,
  error,
  focus,
  onCreate,
}: {
  creating: boolean;
  error: unknown;
  /** Take the focus when shown (back from the secret's panel, whose button had it). */
  focus?: boolean;
  onCreate: (name: string) => void;
}) {
  const [name, setName] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const id = useId();

  useEffect(() => {
    if (focus) input.current?.focus();
    // Once, when shown.
  }, []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (creating) return;
    const found = keyNameProblem(name);
    setProblem(found);
    if (found) {
      input.current?.focus();
      return;
    }
    onCreate(name.trim());
  };

  return (
    <form className="api-key-form" data-testid="api-key-form" onSubmit={submit} noValidate aria-busy={creating}>
      <label className="small" htmlFor={`${id}-name`}>
        Name
      </label>
      <div className="api-key-form-row">
        <input
          ref={input}
          id={`${id}-name`}
          className="text-input"
          data-testid="api-key-name"
          value={name}
          autoComplete="off"
          placeholder="e.g. nightly report script"
          onChange={(e) => {
            setName(e.target.value);
            setProblem(null);
          }}
          aria-invalid={!!problem || undefined}
          aria-describedby={[`${id}-help`, problem ? `${id}-problem` : null].filter(Boolean).join(" ")}
        />
        <button type="submit" className="button primary" data-testid="api-key-create" disabled={creating}>
          {creating ? "Creating…" : "Create key"}
        </button>
      </div>
      <span id={`${id}-help`} className="muted small">
        Name it after the program that will use it, so you know which key to revoke.
      </span>
      {problem && (
        <p id={`${id}-problem`} className="error-text small" role="alert" data-testid="api-key-name-problem">
          {problem}
        </p>
      )}
      {isKeyLimit(error) ? (
        <div className="inline-alert" role="alert" data-testid="api-key-limit">
          {KEY_LIMIT_TEXT}
        </div>
      ) : (
        <ErrorDetails error={error} />
      )}
    </form>
  );
}
