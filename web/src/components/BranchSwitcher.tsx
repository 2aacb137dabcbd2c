import type { SiblingPosition } from "../lib/branches";

/** "‹ 2 / 3 ›": the versions of a user message (its edits and regenerations), one shown at a time. */
export function BranchSwitcher({
  position,
  disabled,
  onSwitch,
}: {
  position: SiblingPosition;
  disabled: boolean;
  onSwitch: (messageId: string) => void;
}) {
  const { index, count, previous, next } = position;
  const why = disabled ? "Wait for the reply to finish" : undefined;
  return (
    <div className="branch-switcher" role="group" aria-label="Versions of this message" data-testid="branch-switcher">
      <button
        type="button"
        className="icon-button small-icon"
        data-testid="branch-prev"
        aria-label="Previous version"
        title={why ?? "Previous version"}
        disabled={disabled || !previous}
        onClick={() => previous && onSwitch(previous)}
      >
        ‹
      </button>
      <span className="branch-position" data-testid="branch-position" aria-live="polite">
        {index + 1} / {count}
      </span>
      <button
        type="button"
        className="icon-button small-icon"
        data-testid="branch-next"
        aria-label="Next version"
        title={why ?? "Next version"}
        disabled={disabled || !next}
        onClick={() => next && onSwitch(next)}
      >
        ›
      </button>
    </div>
  );
}
