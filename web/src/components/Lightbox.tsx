import { useModalDialog } from "../hooks/useModalDialog";

/**
 * An image at full size over the page: a modal <dialog>, so that focus stays in it and Escape
 * closes it; a click outside the image closes it too.
 */
export function Lightbox({ src, name, onClose }: { src: string | null; name: string; onClose: () => void }) {
  const { dialog, close, onBackdropClick } = useModalDialog();
  return (
    <dialog
      ref={dialog}
      className="lightbox"
      data-testid="lightbox"
      aria-label={name}
      onClose={onClose}
      onClick={onBackdropClick}
    >
      <figure className="lightbox-figure">
        {src ? <img src={src} alt={name} /> : <p className="muted">Loading…</p>}
        <figcaption>
          <span className="lightbox-name">{name}</span>
          <button type="button" className="button small" autoFocus onClick={close}>
            Close
          </button>
        </figcaption>
      </figure>
    </dialog>
  );
}
