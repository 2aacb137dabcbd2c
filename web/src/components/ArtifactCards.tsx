import type { ArtifactInfo, ArtifactType } from "@protocol";
import { memo, type ReactNode } from "react";
import { lineCount, type ArtifactDraft } from "../lib/artifactDrafts";
import { artifactKind } from "../lib/artifacts";
import { useArtifactPanelState } from "./artifactPanelState";

const ICONS: Record<ArtifactType, string> = { markdown: "¶", code: "</>", html: "◧", svg: "◇", mermaid: "⇄" };

/**
 * The artifacts an exchange wrote, after its answer: each a card that opens the side panel; then
 * those it is writing (`drafts`), each a card that opens its growing content there.
 */
export const ArtifactCards = memo(function ArtifactCards({ artifacts, drafts = [] }: { artifacts: ArtifactInfo[]; drafts?: ArtifactDraft[] }) {
  return (
    <div className="artifact-cards" data-testid="artifact-cards">
      {artifacts.map((a) => (
        <ArtifactCard key={a.id} artifact={a} />
      ))}
      {drafts.map((d) => (
        <DraftCard key={d.toolUseId} draft={d} />
      ))}
    </div>
  );
});

/**
 * What an artifact's card shows, saved or being written: its icon, title, a line about it, and whether
 * it is open. Its text is its button's name (what a voice user says to press it), after "Open the artifact".
 */
function CardFace({ icon, title, open, children }: { icon: string; title: string; open: boolean; children: ReactNode }) {
  return (
    <>
      <span className="artifact-card-icon" aria-hidden="true">
        {icon}
      </span>
      <span className="visually-hidden">Open the artifact </span>
      <span className="artifact-card-text">
        <span className="artifact-card-title" data-testid="artifact-card-title">
          {title}
        </span>
        <span className="artifact-card-meta">{children}</span>
      </span>
      <span className="artifact-card-open" aria-hidden="true">
        {open ? "Shown" : "Open"}
      </span>
    </>
  );
}

/** An artifact being written: its title and kind as far as they came, and how much of it there is. */
function DraftCard({ draft: d }: { draft: ArtifactDraft }) {
  const panel = useArtifactPanelState();
  const open = panel?.openId === d.toolUseId;
  const title = d.title || "Untitled";
  const kind = d.type ? artifactKind({ type: d.type, language: d.language }) : "Artifact";
  const lines = lineCount(d.content);
  return (
    <button
      type="button"
      className={"artifact-card is-draft" + (open ? " is-open" : "")}
      data-testid="artifact-draft-card"
      data-tool-use-id={d.toolUseId}
      data-artifact-id={d.artifactId ?? undefined}
      aria-pressed={open}
      aria-busy="true"
      onClick={() => panel?.open(d.toolUseId)}
    >
      <CardFace icon={(d.type && ICONS[d.type]) ?? "□"} title={title} open={open}>
        {kind} · <span data-testid="artifact-draft-progress">{d.complete ? "Saving…" : `Writing… ${lines} ${lines === 1 ? "line" : "lines"}`}</span>
        {d.artifactId && !d.complete && <span className="visually-hidden"> (a new version)</span>}
      </CardFace>
    </button>
  );
}

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
      onClick={() => panel?.open(a.id)}
    >
      <CardFace icon={ICONS[a.type] ?? "□"} title={a.title} open={open}>
        {artifactKind(a)} · <span data-testid="artifact-card-version">Version {a.version}</span>
      </CardFace>
    </button>
  );
}
