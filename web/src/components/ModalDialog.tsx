import { useEffect, type ComponentProps, type MouseEvent, type RefObject } from "react";

/**
 * A modal <dialog>, open while it is mounted: focus stays in it and Escape closes it; a click on its
 * backdrop closes it too. Its owner closes it with `ref.current.close()` and unmounts it in `onClose`.
 * `focus`: what takes the focus once it is open (showModal() gives it to the first control otherwise).
 */
export function ModalDialog({
  ref,
  focus,
  ...props
}: Omit<ComponentProps<"dialog">, "ref" | "onClick"> & {
  ref: RefObject<HTMLDialogElement | null>;
  focus?: RefObject<HTMLElement | null>;
  "data-testid": string;
}) {
  useEffect(() => {
    const el = ref.current;
    if (el && !el.open) el.showModal();
    focus?.current?.focus();
    // Once, on mount (both are refs).
  }, []);
  const closeOnBackdrop = (e: MouseEvent<HTMLDialogElement>) => {
    if (e.target === e.currentTarget) ref.current?.close();
  };
  return <dialog ref={ref} onClick={closeOnBackdrop} {...props} />;
}
