import type { Artifact } from "@protocol";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { errorText } from "../api";
import type { ArtifactDraft } from "../lib/artifactDrafts";
import { artifactKind } from "../lib/artifacts";
import { artifactQuery } from "../queries/artifacts";
import { ArtifactActions } from "./ArtifactActions";
import { ArtifactDiff } from "./ArtifactDiff";
import { ArtifactView, DraftSource } from "./ArtifactView";

/**
 * The artifact beside the conversation (on a phone, a sheet over it): its latest version, kept
 * current by artifact:updated, or a version picked in the switcher; its changes from another
 * version; and what can be done with it. Or an artifact the model is writing (`draft`), growing as
 * its tool call's input streams, until the artifact it becomes replaces it. Escape or the close
 * button closes it.
 */
export function ArtifactPanel({ threadId, artifactId, draft, onClose }: { threadId: string; artifactId: string; draft?: ArtifactDraft | null; onClose: () => void }) {
  return draft ? <DraftPanel draft={draft} onClose={onClose} /> : <SavedPanel threadId={threadId} artifactId={artifactId} onClose={onClose} />;
}

function SavedPanel({ threadId, artifactId, onClose }: { threadId: string; artifactId: string; onClose: () => void }) {
  // null: the latest (it follows new versions); a number: that version, kept.
  const [version, setVersion] = useState<number | null>(null);
  const [comparing, setComparing] = useState(false);
  const query = useQuery({ ...artifactQuery(threadId, artifactId, version), placeholderData: keepPreviousData });
  const artifact = query.data;

  return (
    <PanelFrame artifactId={artifactId} title={artifact?.title} kind={artifact && artifactKind(artifact)} onClose={onClose}>
      {artifact && (
        <div className="artifact-toolbar">
          <VersionSwitcher artifact={artifact} following={version === null} onChange={setVersion} />
          <button
            type="button"
            className="button ghost small"
            data-testid="artifact-diff-toggle"
            aria-pressed={comparing}
            disabled={artifact.versions.length < 2}
            title={artifact.versions.length < 2 ? "There is only one version" : "Show the changes from the previous version"}
            onClick={() => setComparing((c) => !c)}
          >
            {comparing ? "Hide changes" : "Changes"}
          </button>
          <span className="artifact-toolbar-gap" />
          <ArtifactActions artifact={artifact} />
        </div>
      )}
      <div className="artifact-body">
        {query.isPending && <p className="loading-line">Loading the artifact…</p>}
        {/* Shown over what was loaded before, too (another branch may not have this artifact). */}
        {query.error && (
          <p className="inline-alert artifact-alert" role="alert" data-testid="artifact-error">
            Could not load the artifact: {errorText(query.error)}
          </p>
        )}
        {artifact && (comparing && artifact.versions.length > 1 ? <Changes threadId={threadId} artifact={artifact} /> : <ArtifactView artifact={artifact} />)}
      </div>
    </PanelFrame>
  );
}

/**
 * An artifact being written: its content so far as source (markdown and code as text; HTML, SVG and
 * Mermaid are not run half-written), nothing to do with it yet.
 */
function DraftPanel({ draft, onClose }: { draft: ArtifactDraft; onClose: () => void }) {
  const kind = draft.type ? artifactKind({ type: draft.type, language: draft.language }) : "Artifact";
  return (
    <PanelFrame artifactId={draft.artifactId ?? ""} draft title={draft.title || "Untitled"} kind={kind} onClose={onClose}>
      <div className="artifact-toolbar artifact-writing" role="status" data-testid="artifact-writing">
        {draft.complete ? "Saving…" : draft.artifactId ? "Writing a new version…" : "Writing…"}
      </div>
      <div className="artifact-body">
        <DraftSource content={draft.content} />
      </div>
    </PanelFrame>
  );
}

/** The panel's frame: its heading, the close button, and Escape. */
function PanelFrame({
  artifactId,
  draft = false,
  title,
  kind,
  onClose,
  children,
}: {
  artifactId: string;
  draft?: boolean;
  title: string | undefined;
  kind: string | false | undefined;
  onClose: () => void;
  children: ReactNode;
}) {
  const closeButton = useRef<HTMLButtonElement>(null);

  // Focus comes to the panel, unless the user is typing elsewhere: a panel that turns to a draft by
  // itself (or to what the draft became) must not take the composer's keys.
  useEffect(() => {
    if (document.activeElement?.closest("textarea, input, [contenteditable='true']")) return;
    closeButton.current?.focus({ preventScroll: true });
  }, [artifactId]);

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape" && !e.defaultPrevented) {
      e.preventDefault();
      onClose();
    }
  };

  return (
    <aside
      className="artifact-panel"
      data-testid="artifact-panel"
      data-artifact-id={artifactId}
      data-draft={draft ? "true" : undefined}
      aria-label={title ? `Artifact: ${title}` : "Artifact"}
      aria-busy={draft || undefined}
      onKeyDown={onKeyDown}
    >
      <header className="artifact-head">
        <div className="artifact-heading">
          <h2 className="artifact-title" data-testid="artifact-title">
            {title ?? "Artifact"}
          </h2>
          {kind && <span className="pill" data-testid="artifact-kind">{kind}</span>}
        </div>
        <button ref={closeButton} type="button" className="icon-button artifact-close" data-testid="artifact-close" aria-label="Close the artifact" title="Close (Esc)" onClick={onClose}>
          ✕
        </button>
      </header>
      {children}
    </aside>
  );
}

/** The branch's versions of the artifact; the newest follows new versions as they come. */
function VersionSwitcher({ artifact: a, following, onChange }: { artifact: Artifact; following: boolean; onChange: (v: number | null) => void }) {
  const newest = a.versions.at(-1)?.version ?? a.version;
  return (
    <label className="artifact-version">
      <span className="visually-hidden">Version</span>
      <select
        data-testid="artifact-version"
        value={a.version}
        data-following={following ? "true" : undefined}
        onChange={(e) => {
          const v = Number(e.target.value);
          onChange(v === newest ? null : v);
        }}
      >
        {a.versions.map((v) => (
          <option key={v.version} value={v.version}>
            Version {v.version}
            {v.version === newest ? " (latest)" : ""}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The shown version's changes from another (the one before it, by default; any other may be picked). */
function Changes({ threadId, artifact: a }: { threadId: string; artifact: Artifact }) {
  const others = a.versions.filter((v) => v.version !== a.version).map((v) => v.version);
  const before = others.filter((v) => v < a.version).at(-1) ?? others[0];
  const [picked, setPicked] = useState<number | null>(null);
  const other = picked !== null && others.includes(picked) ? picked : before;
  const query = useQuery(artifactQuery(threadId, a.id, other));
  const [from, to] = other < a.version ? [query.data, a] : [a, query.data];
  return (
    <div className="artifact-changes">
      <label className="artifact-compare small">
        Compared with{" "}
        <select data-testid="artifact-compare" value={other} onChange={(e) => setPicked(Number(e.target.value))}>
          {others.map((v) => (
            <option key={v} value={v}>
              version {v}
            </option>
          ))}
        </select>
      </label>
      {query.error && (
        <p className="inline-alert artifact-alert" role="alert">
          Could not load version {other}: {errorText(query.error)}
        </p>
      )}
      {from && to ? <ArtifactDiff before={from.content} after={to.content} from={from.version} to={to.version} /> : !query.error && <p className="loading-line">Loading version {other}…</p>}
    </div>
  );
}
