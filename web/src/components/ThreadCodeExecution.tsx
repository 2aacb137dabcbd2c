import type { Thread } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { errorText } from "../api";
import { healthQuery } from "../queries/deployment";
import { usePatchThread } from "../queries/threadMutations";

/** Whether the model may run code in this thread (the code plugin; its `codeExecution` setting). */
export function ThreadCodeExecution({ thread }: { thread: Thread }) {
  const patch = usePatchThread();
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState<boolean | null>(null);
  const on = sending ?? thread.codeExecution !== false;
  const offline = useQuery(healthQuery).data?.model.provider === "offline";

  const change = (codeExecution: boolean) => {
    setError(null);
    setSending(codeExecution);
    patch.mutate({ id: thread.id, codeExecution }, { onError: (err) => setError(`Could not change it: ${errorText(err)}`), onSettled: () => setSending(null) });
  };

  return (
    <fieldset className="settings-section settings-fieldset" data-testid="thread-code-execution">
      <legend className="field-label">Code execution</legend>
      <label className="toggle-line">
        <input type="checkbox" checked={on} disabled={patch.isPending || offline} onChange={(e) => change(e.target.checked)} data-testid="thread-code-execution-toggle" />
        Let the model run code in this thread
      </label>
      {offline ? (
        <p className="muted small" data-testid="code-needs-claude">
          Code execution needs Claude: this app runs the offline model (set <code>ANTHROPIC_API_KEY</code>).
        </p>
      ) : (
        <p className="muted small">Claude runs it in a container on Anthropic&apos;s side, kept from one message to the next. Needs a Claude model that takes it.</p>
      )}
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}
