// Where the conversation shows its artifacts' cards: after the exchange that wrote each one's latest
// version (ArtifactInfo.messageId names that exchange's message), once its answer is over: before the
// next message that starts an exchange, or at the end.

import type { ArtifactInfo } from "@protocol";
import type { TimelineItem } from "./timeline";

/**
 * A message that starts an exchange: one no run wrote (the user's, a task's notification). Whatever
 * follows it up to the next one (its run's activity, tools, answer, errors) is its exchange.
 */
const startsExchange = (item: TimelineItem): string | null =>
  item.type === "message" && !item.message.metadata.runId ? item.message.id : null;

/** The timeline with a card item after each exchange that wrote artifacts (oldest first within it). */
export function withArtifactCards(items: TimelineItem[], artifacts: readonly ArtifactInfo[]): TimelineItem[] {
  if (artifacts.length === 0) return items;
  const byExchange = new Map<string, ArtifactInfo[]>();
  for (const a of [...artifacts].sort((x, y) => x.updatedAt - y.updatedAt)) {
    byExchange.set(a.messageId, [...(byExchange.get(a.messageId) ?? []), a]);
  }
  const out: TimelineItem[] = [];
  let current: string | null = null;
  const close = () => {
    const cards = current ? byExchange.get(current) : undefined;
    if (current && cards) out.push({ type: "artifacts", key: `artifacts:${current}`, artifacts: cards });
    current = null;
  };
  for (const item of items) {
    const starts = startsExchange(item);
    // Pending sends come last, after every exchange.
    if (starts || item.type === "pending") close();
    out.push(item);
    if (starts) current = starts;
  }
  close();
  return out;
}
