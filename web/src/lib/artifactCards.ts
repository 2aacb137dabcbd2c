// Where the conversation shows its artifacts' cards: after the exchange that wrote each one's latest
// version (ArtifactInfo.messageId names that exchange's message), once its answer is over: before the
// next message that starts an exchange, or at the end. An artifact being written (a draft) has its
// card with its exchange's, after them.

import type { ArtifactInfo } from "@protocol";
import type { ArtifactDraft } from "./artifactDrafts";
import type { TimelineItem } from "./timeline";

/**
 * A message that starts an exchange: one no run wrote (the user's, a task's notification). Whatever
 * follows it up to the next one (its run's activity, tools, answer, errors) is its exchange.
 */
const startsExchange = (item: TimelineItem): string | null =>
  item.type === "message" && !item.message.metadata.runId ? item.message.id : null;

/**
 * The timeline with a card item after each exchange that wrote artifacts (oldest first within it)
 * or is writing them (`drafts`, after those). A draft whose exchange is not shown (its run was joined
 * mid-way) has its cards at the end, before pending sends.
 */
export function withArtifactCards(items: TimelineItem[], artifacts: readonly ArtifactInfo[], drafts: readonly ArtifactDraft[] = []): TimelineItem[] {
  if (artifacts.length === 0 && drafts.length === 0) return items;
  const byExchange = new Map<string, ArtifactInfo[]>();
  for (const a of [...artifacts].sort((x, y) => x.updatedAt - y.updatedAt)) {
    byExchange.set(a.messageId, [...(byExchange.get(a.messageId) ?? []), a]);
  }
  const draftsOf = new Map<string | null, ArtifactDraft[]>();
  for (const d of drafts) draftsOf.set(d.messageId, [...(draftsOf.get(d.messageId) ?? []), d]);
  const out: TimelineItem[] = [];
  let current: string | null = null;
  const push = (exchange: string, cards: ArtifactInfo[] = [], writing?: ArtifactDraft[]) => {
    if (cards.length || writing) out.push({ type: "artifacts", key: `artifacts:${exchange}`, artifacts: cards, ...(writing ? { drafts: writing } : {}) });
  };
  const close = () => {
    if (!current) return;
    push(current, byExchange.get(current), draftsOf.get(current));
    draftsOf.delete(current);
    current = null;
  };
  let loose = false;
  const closeAll = () => {
    close();
    if (loose) return;
    loose = true;
    // Drafts whose exchange was not among the items (or is unknown): together, after everything.
    const rest = [...draftsOf.values()].flat();
    if (rest.length) push("writing", [], rest);
  };
  for (const item of items) {
    const starts = startsExchange(item);
    // Pending sends come last, after every exchange.
    if (item.type === "pending") closeAll();
    else if (starts) close();
    out.push(item);
    if (starts) current = starts;
  }
  closeAll();
  return out;
}
