import type { Artifact } from "@protocol";
import { useEffect, useRef, type KeyboardEvent } from "react";
import { artifactKind } from "../lib/artifacts";
import { ArtifactActions } from "./ArtifactActions";
import { ArtifactView } from "./ArtifactView";

/** A shared thread's artifact beside it, read-only: its latest content as the share copied it. */
export function SharedArtifactPanel({ artifact, onClose }: { artifact: Artifact; onClose: () => void }) {
  const closeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    closeButton.current?.focus({ preventScroll: true });
  }, [artifact.id]);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape" && !e.defaultPrevented) {
      e.preventDefault();
      onClose();
    }
  };
  return (
    <aside className="artifact-panel" data-testid="artifact-panel" data-artifact-id={artifact.id} aria-label={`Artifact: ${artifact.title}`} onKeyDown={onKeyDown}>
      <header className="artifact-head">
        <div className="artifact-heading">
          <h2 className="artifact-title" data-testid="artifact-title">
            {artifact.title}
          </h2>
          <span className="pill" data-testid="artifact-kind">
            {artifactKind(artifact)}
          </span>
        </div>
        <button ref={closeButton} type="button" className="icon-button artifact-close" data-testid="artifact-close" aria-label="Close the artifact" title="Close (Esc)" onClick={onClose}>
          ✕
        </button>
      </header>
      <div className="artifact-toolbar">
        <span className="muted small">Version {artifact.version}</span>
        <span className="artifact-toolbar-gap" />
        <ArtifactActions artifact={artifact} />
      </div>
      <div className="artifact-body">
        <ArtifactView artifact={artifact} />
      </div>
    </aside>
  );
}
