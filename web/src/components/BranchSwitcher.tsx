import type { SiblingPosition } from "../lib/branches";
import { WAIT_FOR_REPLY } from "./MessageAction";

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
  return (
    <div className="branch-switcher" role="group" aria-label="Versions of this message" data-testid="branch-switcher">
      <VersionButton to={previous} label="Previous version" glyph="‹" testId="branch-prev" disabled={disabled} onSwitch={onSwitch} />
      <span className="branch-position" data-testid="branch-position" aria-live="polite">
        {index + 1} / {count}
      </span>
      <VersionButton to={next} label="Next version" glyph="›" testId="branch-next" disabled={disabled} onSwitch={onSwitch} />
    </div>
  );
}

/** A step to the version before or after (none at either end). */
function VersionButton({
  to,
  label,
  glyph,
  testId,
  disabled,
  onSwitch,
}: {
  to: string | null;
  label: string;
  glyph: string;
  testId: string;
  disabled: boolean;
  onSwitch: (messageId: string) => void;
}) {
  return (
    <button
      type="button"
      className="icon-button small-icon"
      data-testid={testId}
      aria-label={label}
      title={disabled ? WAIT_FOR_REPLY : label}
      disabled={disabled || !to}
      onClick={() => to && onSwitch(to)}
    >
      {glyph}
    </button>
  );
}
