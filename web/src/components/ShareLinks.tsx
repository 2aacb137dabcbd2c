import type { Share } from "@protocol";
import { useState } from "react";
import { errorText } from "../api";
import { formatRelative } from "../lib/format";
import { useRevokeShare } from "../queries/shares";

/** Share links, each with its URL, when it was made, and revoke (which answers 404 at once). */
export function ShareLinks({ shares, threadName }: { shares: readonly Share[]; threadName?: (threadId: string) => string | undefined }) {
  return (
    <ul className="share-links" data-testid="share-links">
      {shares.map((s) => (
        <ShareRow key={s.id} share={s} threadName={threadName?.(s.threadId)} />
      ))}
    </ul>
  );
}

function ShareRow({ share: s, threadName }: { share: Share; threadName?: string }) {
  const revoke = useRevokeShare();
  const [error, setError] = useState<string | null>(null);
  return (
    <li className="share-link" data-testid="share-link" data-share-id={s.id}>
      <a href={s.url} target="_blank" rel="noreferrer noopener" className="share-link-url">
        {threadName ? `${threadName} · ` : ""}…{s.id.slice(-8)}
      </a>
      <span className="muted small">{formatRelative(s.createdAt)}</span>
      <button
        type="button"
        className="button small ghost"
        data-testid="share-revoke"
        disabled={revoke.isPending}
        onClick={() => revoke.mutate(s.id, { onError: (err) => setError(errorText(err)) })}
      >
        Revoke<span className="visually-hidden"> the link made {formatRelative(s.createdAt)}</span>
      </button>
      {error && (
        <span className="error-text small" role="alert">
          {error}
        </span>
      )}
    </li>
  );
}
