import type { DocumentCitation } from "@protocol";
import { memo, useMemo, useRef, useState } from "react";
import { attachmentUrl, fetchFile, openOrSave, projectFileUrl } from "../fileTransfer";
import { citationChips, likelyPdf, openErrorText, openLabel, placeHeading, type CitationChip } from "../lib/projectKnowledge";
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
 * the text the answer cites, highlighted; and a button that opens the file itself (OpenCitedFile).
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
      {(chip.projectId || chip.threadId) && <OpenCitedFile chip={chip} />}
    </ModalDialog>
  );
}

/**
 * The cited file itself, fetched with the app's credentials (a project's file, or the thread's attachment):
 * a PDF opens in a new tab at the cited page, any other type is downloaded under its name. A 404 (the
 * file was deleted, or the thread's project changed) says the file is no longer in the project.
 */
function OpenCitedFile({ chip }: { chip: CitationChip }) {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const open = () => {
    setState({ busy: true, error: null });
    const page = "page" in chip.location ? chip.location.page : undefined;
    const url = chip.threadId ? attachmentUrl(chip.threadId, chip.fileId) : projectFileUrl(chip.projectId, chip.fileId);
    openOrSave(() => fetchFile(url).then((f) => f.blob), chip.name, { page, expectPdf: likelyPdf(chip.name, chip.location) }).then(
      () => setState({ busy: false, error: null }),
      (err: unknown) => setState({ busy: false, error: openErrorText(err) }),
    );
  };
  return (
    <div className="citation-panel-actions">
      <button type="button" className="button small" data-testid="citation-open" disabled={state.busy} aria-busy={state.busy} onClick={open}>
        {openLabel(chip.name, chip.location)}
      </button>
      {state.error && (
        <p className="error-text small" role="alert" data-testid="citation-open-error">
          {state.error}
        </p>
      )}
    </div>
  );
}
