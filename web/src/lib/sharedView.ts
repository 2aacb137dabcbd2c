// A shared thread as its read-only page shows it: the copy's messages as the chat's timeline (stored
// runs folded as the chat folds them, with the artifacts' cards after the exchange that wrote each),
// and the line that says when it was shared.

import type { ArtifactInfo, SharedThread } from "@protocol";
import { withArtifactCards } from "./artifactCards";
import { buildTimeline, type TimelineItem } from "./timeline";

const KINDS = new Set(["text", "thinking", "tool_call", "tool_result"]);

/** The copy's messages, oldest first, with its artifacts' cards; kinds a share should not hold are left out. */
export function sharedTimeline(shared: Pick<SharedThread, "messages" | "artifacts">): TimelineItem[] {
  const messages = shared.messages.filter((m) => KINDS.has(m.kind)).sort((a, b) => a.createdAt - b.createdAt);
  const infos: ArtifactInfo[] = shared.artifacts.map(({ id, title, type, language, version, messageId, updatedAt }) => ({
    id,
    title,
    type,
    language,
    version,
    messageId,
    updatedAt,
  }));
  return withArtifactCards(buildTimeline(messages, {}, [], []), infos);
}

/** "Shared on 3 May 2026" (the date in the reader's locale and timezone). */
export function sharedOn(createdAt: number, locale?: string, timeZone?: string): string {
  const date = new Date(createdAt).toLocaleDateString(locale, { year: "numeric", month: "long", day: "numeric", timeZone });
  return `Shared on ${date}`;
}
