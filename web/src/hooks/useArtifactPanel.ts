import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { ArtifactPanelState } from "../components/artifactPanelState";
import type { ArtifactDraft } from "../lib/artifactDrafts";

/**
 * The open thread's artifact panel: closed at first, one artifact at a time (ChatView is keyed by
 * thread). It may show an artifact being written (a draft, opened by its tool use id): an open
 * panel turns to each new draft as it begins, and a draft that became an artifact (`writtenBy`
 * answers its id) is shown as that artifact from then on.
 */
export function useArtifactPanel(
  drafts: readonly ArtifactDraft[] = [],
  writtenBy: (toolUseId: string) => string | undefined = () => undefined,
): ArtifactPanelState & { close: () => void; draft: ArtifactDraft | null } {
  const [picked, setPicked] = useState<string | null>(null);
  const close = useCallback(() => setPicked(null), []);

  // Drafts seen so far: only one that begins now turns an open panel to it.
  const seen = useRef(new Set<string>());
  const draft = drafts.find((d) => d.toolUseId === picked) ?? null;
  // Resolved as it renders, so that the card of the artifact it became shows as open at once; a
  // draft that became nothing (its tool failed, its run ended) closes the panel.
  const became = picked === null || draft ? undefined : writtenBy(picked);
  const vanished = picked !== null && !draft && !became && seen.current.has(picked);
  const openId = vanished ? null : (became ?? picked);

  const newest = drafts.findLast((d) => !seen.current.has(d.toolUseId))?.toolUseId;
  useEffect(() => {
    for (const d of drafts) seen.current.add(d.toolUseId);
    if (vanished) setPicked(null);
    else if (newest && openId !== null) setPicked(newest);
  }, [drafts, newest, vanished, openId]);

  return useMemo(() => ({ openId, open: setPicked, close, draft }), [openId, close, draft]);
}
