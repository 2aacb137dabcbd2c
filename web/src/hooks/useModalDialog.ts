import { useEffect, useRef, type MouseEvent, type RefObject } from "react";

/**
 * A modal <dialog>, opened when the component mounts: focus stays in it and Escape closes it; a click
 * on its backdrop closes it too. `focus`: what takes the focus once it is open (showModal() gives it
 * to the first control otherwise).
 */
export function useModalDialog(focus?: RefObject<HTMLElement | null>) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const el = dialog.current;
    if (el && !el.open) el.showModal();
    focus?.current?.focus();
    // Once, on mount (`focus` is a ref).
  }, []);
  const close = () => dialog.current?.close();
  const onBackdropClick = (e: MouseEvent<HTMLDialogElement>) => {
    if (e.target === e.currentTarget) close();
  };
  return { dialog, close, onBackdropClick };
}
