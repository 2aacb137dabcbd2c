import { useCallback, useMemo, useState } from "react";
import type { ArtifactPanelState } from "../components/artifactPanelState";

/** The open thread's artifact panel: closed at first, one artifact at a time (ChatView is keyed by thread). */
export function useArtifactPanel(): ArtifactPanelState & { close: () => void } {
  const [openId, setOpenId] = useState<string | null>(null);
  const close = useCallback(() => setOpenId(null), []);
  return useMemo(() => ({ openId, open: setOpenId, close }), [openId, close]);
}
