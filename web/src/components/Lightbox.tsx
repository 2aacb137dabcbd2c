import { useEffect, useRef } from "react";

/**
 * An image at full size over the page: a modal <dialog>, so that focus stays in it and Escape
 * closes it; a click outside the image closes it too.
 */
export function Lightbox({ src, name, onClose }: { src: string | null; name: string; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const el = dialog.current;
    if (el && !el.open) el.showModal();
  }, []);
  return (
    <dialog
      ref={dialog}
      className="lightbox"
      data-testid="lightbox"
      aria-label={name}
      onClose={onClose}
      onClick={(e) => {
        if (e.target === e.currentTarget) dialog.current?.close();
      }}
    >
      <figure className="lightbox-figure">
        {src ? <img src={src} alt={name} /> : <p className="muted">Loading…</p>}
        <figcaption>
          <span className="lightbox-name">{name}</span>
          <button type="button" className="button small" autoFocus onClick={() => dialog.current?.close()}>
            Close
          </button>
        </figcaption>
      </figure>
    </dialog>
  );
}
