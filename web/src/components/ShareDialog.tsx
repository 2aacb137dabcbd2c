import type { Thread } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { errorText } from "../api";
import { sharesQuery, threadFilesQuery, useCreateShare, useRevokeShare } from "../queries/shares";
import { ModalDialog } from "./ModalDialog";
import { ShareLinks } from "./ShareLinks";

/**
 * "Share": makes a read-only link to the thread's current branch as it is now (POST …/shares) when
 * opened, shows its URL with a copy button, and lists the thread's other links with revoke. Where the
 * thread's code wrote files, the owner may share them too: the link is made again with them (the one
 * made without them, a moment ago, is revoked).
 */
export function ShareDialog({ thread, onClose }: { thread: Thread; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const create = useCreateShare();
  const revoke = useRevokeShare();
  const shares = useQuery(sharesQuery);
  const written = useQuery(threadFilesQuery(thread.id)).data ?? [];
  const [codeFiles, setCodeFiles] = useState(false);
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  const made = useRef(false);

  useEffect(() => {
    if (made.current) return;
    made.current = true;
    create.mutate({ threadId: thread.id }, { onSuccess: () => setTimeout(() => field.current?.select(), 0) });
  }, [create, thread.id]);

  const share = create.data;
  const withFiles = (on: boolean) => {
    const before = share?.id;
    setCodeFiles(on);
    setCopied(null);
    create.mutate({ threadId: thread.id, codeFiles: on }, { onSuccess: () => before && revoke.mutate(before) });
  };
  const copy = () => {
    if (!share) return;
    void navigator.clipboard?.writeText(share.url).then(
      () => setCopied("yes"),
      () => setCopied("failed"),
    );
  };
  const others = (shares.data ?? []).filter((s) => s.threadId === thread.id && s.id !== share?.id);

  return (
    <ModalDialog ref={dialog} className="share-dialog" data-testid="share-dialog" aria-labelledby="share-title" onClose={onClose}>
      <header className="side-panel-header">
        <h2 id="share-title">Share “{thread.name}”</h2>
        <button type="button" className="icon-button" aria-label="Close" data-testid="share-close" onClick={() => dialog.current?.close()}>
          ✕
        </button>
      </header>
      <p className="muted small">
        Anyone with the link can read this conversation as it is now, without signing in. Later messages are not shared.
      </p>
      {written.length > 0 && (
        <label className="toggle-line small">
          <input type="checkbox" checked={codeFiles} disabled={create.isPending} onChange={(e) => withFiles(e.target.checked)} data-testid="share-code-files" />
          Share the {written.length === 1 ? "file" : `${written.length} files`} the code wrote too
        </label>
      )}
      {create.isPending && <p className="muted small" role="status">Making the link…</p>}
      {create.error && (
        <p className="error-text small" role="alert">
          Could not make a link: {errorText(create.error)}
        </p>
      )}
      {share && (
        <div className="share-url-row">
          <label htmlFor="share-url" className="visually-hidden">
            Link
          </label>
          <input id="share-url" ref={field} className="text-input" data-testid="share-url" readOnly value={share.url} onFocus={(e) => e.target.select()} />
          <button type="button" className="button small primary" data-testid="share-copy" onClick={copy}>
            {copied === "yes" ? "Copied" : copied === "failed" ? "Copy failed" : "Copy link"}
          </button>
          <a className="button small ghost" href={share.url} target="_blank" rel="noreferrer noopener">
            Open
          </a>
        </div>
      )}
      {others.length > 0 && (
        <section className="settings-section" aria-labelledby="share-others">
          <h3 id="share-others" className="field-label">
            Earlier links to this thread
          </h3>
          <ShareLinks shares={others} />
        </section>
      )}
    </ModalDialog>
  );
}
