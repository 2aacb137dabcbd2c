import { useRef } from "react";
import { ModalDialog } from "./ModalDialog";

/**
 * An image at full size over the page: a modal <dialog>, so that focus stays in it and Escape
 * closes it; a click outside the image closes it too.
 */
export function Lightbox({ src, name, onClose }: { src: string | null; name: string; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <ModalDialog ref={dialog} className="lightbox" data-testid="lightbox" aria-label={name} onClose={onClose}>
      <figure className="lightbox-figure">
        {src ? <img src={src} alt={name} /> : <p className="muted">Loading…</p>}
        <figcaption>
          <span className="lightbox-name">{name}</span>
          <button type="button" className="button small" autoFocus onClick={() => dialog.current?.close()}>
            Close
          </button>
        </figcaption>
      </figure>
    </ModalDialog>
  );
}
