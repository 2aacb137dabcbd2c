// What the open thread's conversation shows: its timeline (lib/timeline.ts: stored messages, live
// runs and pending sends, with the cards of the artifacts written) and the artifact panel.
import { useMemo } from "react";
import { withArtifactCards } from "../lib/artifactCards";
import { artifactDrafts, writtenBy } from "../lib/artifactDrafts";
import type { ChatState } from "../lib/chatState";
import { buildTimeline } from "../lib/timeline";
import { useThreadArtifacts } from "../queries/artifacts";
import { useArtifactPanel } from "./useArtifactPanel";
import { usePendingMessages } from "./usePendingMessages";

export function useThreadTimeline(threadId: string | null, state: ChatState) {
  const pending = usePendingMessages(threadId);
  const artifacts = useThreadArtifacts(threadId);
  // Artifacts being written (their tool call's input streaming): cards and a panel that grow.
  const drafts = useMemo(() => artifactDrafts(state.runs, state.runOrder, artifacts), [state.runs, state.runOrder, artifacts]);
  const artifactPanel = useArtifactPanel(drafts, (toolUseId) => writtenBy(state.runs, toolUseId));
  const items = useMemo(
    () => withArtifactCards(buildTimeline(state.messages, state.runs, state.runOrder, pending), artifacts, drafts),
    [state.messages, state.runs, state.runOrder, pending, artifacts, drafts],
  );
  return { items, artifactPanel };
}
