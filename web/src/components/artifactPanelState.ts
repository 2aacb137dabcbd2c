// Which artifact the open thread's side panel shows, given by ChatView through context so that the
// cards in the conversation can open it.
import { createContext, useContext } from "react";

export interface ArtifactPanelState {
  /** The artifact the panel shows (an artifact being written: its tool use id); null when it is closed. */
  openId: string | null;
  open: (id: string) => void;
}

export const ArtifactPanelContext = createContext<ArtifactPanelState | null>(null);

export const useArtifactPanelState = () => useContext(ArtifactPanelContext);
