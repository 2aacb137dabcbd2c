import type { ArtifactInfo, ArtifactType } from "@protocol";
import { memo } from "react";
import { artifactKind } from "../lib/artifacts";
import { useArtifactPanelState } from "./artifactPanelState";

const ICONS: Record<ArtifactType, string> = { markdown: "¶", code: "</>", html: "◧", svg: "◇", mermaid: "⇄" };

/** The artifacts an exchange wrote, after its answer: each a card that opens the side panel. */
export const ArtifactCards = memo(function ArtifactCards({ artifacts }: { artifacts: ArtifactInfo[] }) {
  return (
    <div className="artifact-cards" data-testid="artifact-cards">
      {artifacts.map((a) => (
        <ArtifactCard key={a.id} artifact={a} />
      ))}
    </div>
  );
});

function ArtifactCard({ artifact: a }: { artifact: ArtifactInfo }) {
  const panel = useArtifactPanelState();
  const open = panel?.openId === a.id;
  return (
    <button
      type="button"
      className={"artifact-card" + (open ? " is-open" : "")}
      data-testid="artifact-card"
      data-artifact-id={a.id}
      data-type={a.type}
      data-version={a.version}
      aria-pressed={open}
      aria-label={`Open the artifact ${a.title} (${artifactKind(a)}, version ${a.version})`}
      onClick={() => panel?.open(a.id)}
    >
      <span className="artifact-card-icon" aria-hidden="true">
        {ICONS[a.type] ?? "□"}
      </span>
      <span className="artifact-card-text">
        <span className="artifact-card-title" data-testid="artifact-card-title">
          {a.title}
        </span>
        <span className="artifact-card-meta">
          {artifactKind(a)} · <span data-testid="artifact-card-version">Version {a.version}</span>
        </span>
      </span>
      <span className="artifact-card-open" aria-hidden="true">
        {open ? "Shown" : "Open"}
      </span>
    </button>
  );
}
