import type { DocumentCitation } from "@protocol";
import { memo, useMemo, useRef, useState } from "react";
import { citationChips, placeHeading, type CitationChip } from "../lib/projectKnowledge";
import { ModalDialog } from "./ModalDialog";

/**
 * The project passages an answer cites, as chips under its text ("report.pdf · page 37"), one per
 * file and place. A chip opens a panel with the file's name, the place and the cited text.
 */
export const DocumentCitations = memo(function DocumentCitations({ citations }: { citations: readonly DocumentCitation[] | null }) {
  const chips = useMemo(() => citationChips(citations), [citations]);
  const [open, setOpen] = useState<CitationChip | null>(null);
  if (chips.length === 0) return null;
  return (
    <section className="document-citations" aria-label="Cited documents" data-testid="document-citations">
      <ul className="citation-chips">
        {chips.map((chip) => (
          <li key={chip.key}>
            <button
              type="button"
              className="citation-chip"
              data-testid="citation-chip"
              data-file-id={chip.fileId}
              title={chip.quotes[0]}
              aria-haspopup="dialog"
              onClick={() => setOpen(chip)}
            >
              <span className="citation-chip-icon" aria-hidden="true">
                ❝
              </span>
              <span className="citation-chip-label">{chip.label}</span>
            </button>
          </li>
        ))}
      </ul>
      {open && <CitationPanel chip={open} onClose={() => setOpen(null)} />}
    </section>
  );
});

/**
 * A cited passage over the page: its file, where in it (page, sheet and row, slide or section) and
 * the text the answer cites, highlighted. (The file's bytes have no route yet, so the file itself is
 * not opened; with one, a PDF would open at its page with #page=N.)
 */
export function CitationPanel({ chip, onClose }: { chip: CitationChip; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = `citation-title-${chip.key.replace(/[^\w-]/g, "_")}`;
  return (
    <ModalDialog ref={dialog} className="citation-panel" data-testid="citation-panel" data-file-id={chip.fileId} aria-labelledby={titleId} onClose={onClose}>
      <header className="side-panel-header">
        <h2 id={titleId} className="citation-panel-name">
          {chip.name}
        </h2>
        <button type="button" className="icon-button" aria-label="Close" data-testid="citation-panel-close" autoFocus onClick={() => dialog.current?.close()}>
          ✕
        </button>
      </header>
      <p className="citation-panel-place" data-testid="citation-panel-place">
        {placeHeading(chip.location)}
      </p>
      {chip.quotes.length > 0 ? (
        chip.quotes.map((quote) => (
          <blockquote key={quote} className="citation-passage">
            <mark data-testid="citation-panel-text">{quote}</mark>
          </blockquote>
        ))
      ) : (
        <p className="muted small">The answer cites this place without quoting it.</p>
      )}
    </ModalDialog>
  );
}
