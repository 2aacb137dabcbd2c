import type { Thread } from "@protocol";
import { ClockIcon } from "./ClockIcon";

/**
 * Before a thread's name in the sidebar: a clock for a scheduled thread, "API" for one a program made
 * with an API key (so a person tells them from their own); nothing for the others.
 */
export function ThreadKindMark({ kind }: { kind: Thread["kind"] }) {
  if (kind === "cron") {
    return (
      <span className="thread-kind-mark" data-testid="thread-scheduled-mark" title="Scheduled thread">
        <ClockIcon size={11} />
        <span className="visually-hidden">Scheduled thread: </span>
      </span>
    );
  }
  if (kind === "api") {
    return (
      <span className="pill pill-api thread-api-badge" data-testid="thread-api-badge" title="Made by a program with an API key">
        API<span className="visually-hidden"> thread:</span>
      </span>
    );
  }
  return null;
}
