import type { Artifact } from "@protocol";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { errorText } from "../api";
import { artifactKind } from "../lib/artifacts";
import { artifactQuery } from "../queries/artifacts";
import { ArtifactActions } from "./ArtifactActions";
import { ArtifactDiff } from "./ArtifactDiff";
import { ArtifactView } from "./ArtifactView";

/**
 * The artifact beside the conversation (on a phone, a sheet over it): its latest version, kept
 * current by artifact:updated, or a version picked in the switcher; its changes from another
 * version; and what can be done with it. Escape or the close button closes it.
 */
export function ArtifactPanel({ threadId, artifactId, onClose }: { threadId: string; artifactId: string; onClose: () => void }) {
  // null: the latest (it follows new versions); a number: that version, kept.
  const [version, setVersion] = useState<number | null>(null);
  const [comparing, setComparing] = useState(false);
  const query = useQuery({ ...artifactQuery(threadId, artifactId, version), placeholderData: keepPreviousData });
  const artifact = query.data;
  const closeButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    closeButton.current?.focus({ preventScroll: true });
  }, [artifactId]);

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape" && !e.defaultPrevented) {
      e.preventDefault();
      onClose();
    }
  };

  return (
    <aside className="artifact-panel" data-testid="artifact-panel" data-artifact-id={artifactId} aria-label={artifact ? `Artifact: ${artifact.title}` : "Artifact"} onKeyDown={onKeyDown}>
      <header className="artifact-head">
        <div className="artifact-heading">
          <h2 className="artifact-title" data-testid="artifact-title">
            {artifact?.title ?? "Artifact"}
          </h2>
          {artifact && <span className="pill" data-testid="artifact-kind">{artifactKind(artifact)}</span>}
        </div>
        <button ref={closeButton} type="button" className="icon-button artifact-close" data-testid="artifact-close" aria-label="Close the artifact" title="Close (Esc)" onClick={onClose}>
          ✕
        </button>
      </header>
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
