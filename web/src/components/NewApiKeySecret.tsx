import type { ApiKey } from "@protocol";
import { useEffect, useId, useRef, useState } from "react";

/**
 * A new key's secret, shown this once: copy it, then dismiss the panel, which forgets it (the server
 * keeps only a hash, so nothing can show it again). The Copy button takes the focus when it appears.
 */
export function NewApiKeySecret({ apiKey, secret, onDismiss }: { apiKey: ApiKey; secret: string; onDismiss: () => void }) {
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  const copyButton = useRef<HTMLButtonElement>(null);
  const id = useId();

  useEffect(() => copyButton.current?.focus(), []);

  const copy = () => {
    // No clipboard (an insecure origin) or no permission: the user selects the key themselves.
    const written = navigator.clipboard?.writeText(secret) ?? Promise.reject(new Error("no clipboard"));
    written.then(
      () => setCopied("yes"),
      () => setCopied("failed"),
    );
  };

  return (
    <section className="api-key-secret" aria-labelledby={`${id}-title`} data-testid="api-key-secret-panel" data-key-id={apiKey.id}>
      <h3 id={`${id}-title`} className="api-key-secret-title">
        Your new key “{apiKey.name}”
      </h3>
      <p id={`${id}-warning`} className="api-key-warning">
        <strong>Copy it now: it won’t be shown again.</strong> The app keeps only a fingerprint of it. If you lose it, revoke it
        and create another.
      </p>
      <div className="api-key-secret-row">
        <code className="api-key-secret-value" data-testid="api-key-secret">
          {secret}
        </code>
        <button ref={copyButton} type="button" className="button small primary" data-testid="api-key-copy" aria-describedby={`${id}-warning`} onClick={copy}>
          {copied === "yes" ? "Copied" : "Copy"}
        </button>
      </div>
      <div className="row-actions">
        <button type="button" className="button small" data-testid="api-key-dismiss" onClick={onDismiss}>
          Done, I have copied it
        </button>
        {/* Always there, empty at first: a live region announces what is put in it, not what it is born with. */}
        <span className="small" role="status" data-testid="api-key-copy-status">
          {copied === "yes" && <span className="ok-text">Copied to the clipboard.</span>}
          {copied === "failed" && <span className="error-text">The browser did not let the page copy: select the key and copy it yourself.</span>}
        </span>
      </div>
    </section>
  );
}
