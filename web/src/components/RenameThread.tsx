import type { Thread } from "@protocol";
import { useRef, useState } from "react";
import { errorText } from "../api";
import { usePatchThread } from "../queries/threadMutations";

/**
 * A thread's name as a text field: Enter or leaving the field saves it, Escape keeps the old one.
 * Either way the field closes at once (`onClose`); a save that fails is reported to `onError`,
 * after the field has gone.
 */
export function RenameThread({
  thread,
  className,
  testId,
  label,
  onClose,
  onError,
}: {
  thread: Thread;
  className: string;
  testId: string;
  label: string;
  onClose: () => void;
  onError: (message: string) => void;
}) {
  const [name, setName] = useState(thread.name);
  const { mutateAsync: patch } = usePatchThread();
  // Enter closes the field, and the blur that may follow must not save a second time.
  const closed = useRef(false);

  const close = (save: boolean) => {
    if (closed.current) return;
    closed.current = true;
    onClose();
    const next = name.trim();
    if (save && next && next !== thread.name) patch({ id: thread.id, name: next }).catch((err) => onError(errorText(err)));
  };

  return (
    <input
      className={className}
      data-testid={testId}
      aria-label={label}
      value={name}
      autoFocus
      onChange={(e) => setName(e.target.value)}
      onBlur={() => close(true)}
      onKeyDown={(e) => {
        if (e.key === "Enter") close(true);
        if (e.key === "Escape") close(false);
      }}
    />
  );
}
