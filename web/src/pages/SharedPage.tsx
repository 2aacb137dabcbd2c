import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { ApiError, errorText } from "../api";
import { ArtifactPanelContext } from "../components/artifactPanelState";
import { AttachmentSourceContext } from "../components/attachmentSource";
import { MessageList } from "../components/MessageList";
import { SharedArtifactPanel } from "../components/SharedArtifactPanel";
import { sharedOn, sharedTimeline } from "../lib/sharedView";
import { sharedThreadQuery } from "../queries/shares";

const noop = () => {};

/** A revoked or unknown link: said plainly, with the way to the app. */
function SharedNotFound() {
  return (
    <main id="main" className="shared-page" data-testid="shared-not-found">
      <div className="empty-state">
        <h1>This shared conversation is not available</h1>
        <p className="muted">The link may have been revoked by the person who shared it, or it was never valid.</p>
        <a href="/" className="button">
          Open the app
        </a>
      </div>
    </main>
  );
}

/**
 * A share link's page (/s/:id), for anyone with the link and without signing in: the thread's name,
 * when it was shared, and the conversation as it was then, read-only (no composer, no sidebar), with
 * its artifacts and the images sent in it (from the share's own routes).
 */
export default function SharedPage({ shareId }: { shareId: string }) {
  const query = useQuery(sharedThreadQuery(shareId));
  const shared = query.data;
  const items = useMemo(() => (shared ? sharedTimeline(shared) : []), [shared]);
  const [openId, setOpenId] = useState<string | null>(null);
  const panel = useMemo(() => ({ openId, open: setOpenId }), [openId]);
  const source = useMemo(() => ({ shareId }), [shareId]);
  const artifact = shared?.artifacts.find((a) => a.id === openId);

  useEffect(() => {
    document.title = shared ? `${shared.thread.name} · Shared conversation` : "Shared conversation";
  }, [shared]);

  if (query.error instanceof ApiError && query.error.status === 404) return <SharedNotFound />;
  return (
    <div className="shared-app" data-testid="shared-view">
      <header className="shared-header">
        <span className="brand small-brand">
          <span className="brand-mark" aria-hidden="true">◆</span> Orchestrator
        </span>
        <span className="pill">Read-only</span>
      </header>
      <main id="main" className={"shared-page chat-view" + (artifact ? " has-artifact" : "")} tabIndex={-1}>
        <div className="shared-title">
          <h1 className="chat-title" data-testid="shared-title">
            {shared?.thread.name ?? (query.isPending ? "Loading…" : "Shared conversation")}
          </h1>
          {shared && (
            <p className="muted small" data-testid="shared-date">
              {sharedOn(shared.share.createdAt)}
            </p>
          )}
        </div>
        {query.error && (
          <div className="inline-alert" role="alert">
            Could not load the conversation: {errorText(query.error)}{" "}
            <button type="button" className="link-button" onClick={() => void query.refetch()}>
              Try again
            </button>
          </div>
        )}
        {shared && (
          <AttachmentSourceContext.Provider value={source}>
            <ArtifactPanelContext.Provider value={panel}>
              <MessageList
                items={items}
                hasOlder={false}
                loadingOlder={false}
                onLoadOlder={noop}
                onRetry={noop}
                empty={<p className="muted empty-state small-empty">This conversation has no messages.</p>}
              />
            </ArtifactPanelContext.Provider>
          </AttachmentSourceContext.Provider>
        )}
        {artifact && <SharedArtifactPanel artifact={artifact} onClose={() => setOpenId(null)} />}
      </main>
    </div>
  );
}
