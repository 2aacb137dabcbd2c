import type { Ref } from "react";

/** The server refuses a new version or a branch switch while a reply runs. */
export const WAIT_FOR_REPLY = "Wait for the reply to finish";

/** An action under a message (edit, regenerate): off while a reply runs, and saying why. */
export function MessageAction({
  icon,
  text,
  label,
  testId,
  busy,
  onClick,
  ref,
}: {
  icon: string;
  text: string;
  /** What the action does to this message, for screen readers. */
  label: string;
  testId: string;
  busy: boolean;
  onClick: () => void;
  ref?: Ref<HTMLButtonElement>;
}) {
  return (
    <button ref={ref} type="button" className="msg-action" data-testid={testId} aria-label={label} title={busy ? WAIT_FOR_REPLY : text} disabled={busy} onClick={onClick}>
      <span aria-hidden="true">{icon}</span> {text}
    </button>
  );
}
