import type { ConnectionState } from "../lib/threadSync";

const LABEL: Record<ConnectionState, string> = {
  connecting: "Connecting…",
  open: "Live",
  closed: "Reconnecting…",
};

/** The thread socket's state, always visible in the chat header. */
export function ConnectionBadge({ state }: { state: ConnectionState }) {
  return (
    <span className={`connection is-${state}`} data-testid="connection-state" data-state={state} role="status" aria-live="polite">
      <span className="connection-dot" aria-hidden="true" />
      <span className="connection-label">{LABEL[state]}</span>
    </span>
  );
}
