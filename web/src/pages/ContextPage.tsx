import { MEMORY_DIR } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { errorText } from "../api";
import { contextFilesQuery, useContextFilesLive } from "../queries/contextFiles";
import { ContextFileEditor } from "./ContextFileEditor";
import { ContextFileList } from "./ContextFileList";

export default function ContextPage() {
  const files = useQuery(contextFilesQuery);
  useContextFilesLive(files.data?.files);
  /** The file being edited; null: a new one. */
  const [selected, setSelected] = useState<string | null>(null);
  /** What the last save or delete did; it stays until another file is chosen. */
  const [outcome, setOutcome] = useState<string | null>(null);

  const choose = (path: string | null) => {
    setSelected(path);
    setOutcome(null);
  };

  const list = [...(files.data?.files ?? [])].sort((a, b) => a.path.localeCompare(b.path));
  const isNote = (path: string) => path.startsWith(`${MEMORY_DIR}/`);
  const notes = list.filter((f) => isNote(f.path));
  const injected = list.filter((f) => !isNote(f.path));
  const cut = files.data?.cut;

  return (
    <div className="page">
      <header className="page-header">
        <h1>Context</h1>
        <p className="muted">What the assistant knows about you and your work, in Markdown files.</p>
      </header>
      <div className="split">
        <section className="split-list" aria-label="Context files">
          <button type="button" className="button small" data-testid="context-new" onClick={() => choose(null)}>
            + New file
          </button>
          {files.isPending && <p className="muted small">Loading…</p>}
          {files.error && <div className="inline-alert" role="alert">{errorText(files.error)}</div>}
          {cut && cut.size > 0 && (
            <p className="inline-note small" data-testid="context-cut-note">
              {cut.size === 1 ? "One file is" : `${cut.size} files are`} cut from prompts to fit the model's context window.
            </p>
          )}
          {files.data && (
            <>
              <ContextFileList
                title="Context files"
                testId="context-files"
                explanation="Put into every prompt's system section by the context plugin."
                files={injected}
                cut={cut}
                selected={selected}
                empty="No context files yet."
                onChoose={choose}
              />
              <ContextFileList
                title="Assistant's notes"
                testId="context-notes"
                explanation={
                  <>
                    The assistant writes these itself, with its memory tool, to remember things across conversations. You can edit
                    or delete them. Unlike the files above they are not put into every prompt: the assistant reads them when it
                    needs them.
                  </>
                }
                files={notes}
                selected={selected}
                empty="No notes yet: the assistant has not saved anything."
                onChoose={choose}
              />
            </>
          )}
        </section>

        <ContextFileEditor
          key={selected ?? "" /* no file has an empty path */}
          path={selected}
          outcome={outcome}
          onSaved={(path) => {
            setSelected(path);
            setOutcome("Saved");
          }}
          onDeleted={() => {
            setSelected(null);
            setOutcome("Deleted");
          }}
        />
      </div>
    </div>
  );
}
