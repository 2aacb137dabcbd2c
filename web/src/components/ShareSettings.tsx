import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { errorText } from "../api";
import { sharesQuery } from "../queries/shares";
import { useThreadList } from "../queries/threads";
import { ShareLinks } from "./ShareLinks";

/** The settings' list of the user's share links (this thread's first), each with revoke. */
export function ShareSettings({ threadId }: { threadId: string }) {
  // Read afresh each time the settings open: a link made a moment ago in the share dialog (whose own
  // read of the list may have crossed its creation) is listed here whatever that read answered.
  const shares = useQuery({ ...sharesQuery, refetchOnMount: "always" });
  const { threads } = useThreadList(false);
  const names = useMemo(() => new Map(threads.map((t) => [t.id, t.name])), [threads]);
  const list = useMemo(
    () => [...(shares.data ?? [])].sort((a, b) => Number(b.threadId === threadId) - Number(a.threadId === threadId) || b.createdAt - a.createdAt),
    [shares.data, threadId],
  );
  return (
    <section className="settings-section" aria-labelledby="share-settings-title" data-testid="share-settings">
      <h3 id="share-settings-title" className="field-label">
        Your share links
      </h3>
      <p className="muted small">Read-only copies of conversations, for anyone with the link. Revoking one ends it at once.</p>
      {shares.isPending && <p className="muted small">Loading…</p>}
      {shares.error && (
        <p className="error-text small" role="alert">
          {errorText(shares.error)}
        </p>
      )}
      {shares.data && list.length === 0 && <p className="muted small">No links yet: "Share…" in a thread's menu makes one.</p>}
      {list.length > 0 && <ShareLinks shares={list} threadName={(id) => names.get(id) ?? "A deleted thread"} />}
    </section>
  );
}
