import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { errorText } from "../api";
import { formatBytes, formatRelative } from "../lib/format";
import { contextFilesQuery } from "../queries/contextFiles";
import { ContextFileEditor } from "./ContextFileEditor";

export default function ContextPage() {
  const files = useQuery(contextFilesQuery);
  /** The file being edited; null: a new one. */
  const [selected, setSelected] = useState<string | null>(null);
  /** What the last save or delete did; it stays until another file is chosen. */
  const [outcome, setOutcome] = useState<string | null>(null);

  const choose = (path: string | null) => {
    setSelected(path);
    setOutcome(null);
  };

  const list = [...(files.data?.files ?? [])].sort((a, b) => a.path.localeCompare(b.path));
  const cut = files.data?.cut;

  return (
    <div className="page">
      <header className="page-header">
        <h1>Context</h1>
        <p className="muted">Markdown files that the context plugin injects into every prompt's system section.</p>
      </header>
      <div className="split">
        <section className="split-list" aria-label="Context files">
          <button type="button" className="button small" data-testid="context-new" onClick={() => choose(null)}>
            + New file
          </button>
          {files.isPending && <p className="muted small">Loading…</p>}
          {files.error && <div className="inline-alert" role="alert">{errorText(files.error)}</div>}
          {files.data && list.length === 0 && <p className="muted small">No context files yet.</p>}
          {cut && cut.size > 0 && (
            <p className="inline-note small" data-testid="context-cut-note">
              {cut.size === 1 ? "One file is" : `${cut.size} files are`} cut from prompts to fit the model's context window.
            </p>
          )}
          <ul className="file-list">
            {list.map((f) => (
              <li key={f.path}>
                <button
                  type="button"
                  className={"file-row" + (f.path === selected ? " is-active" : "")}
                  data-testid="context-file"
                  data-path={f.path}
                  aria-current={f.path === selected ? "true" : undefined}
                  onClick={() => choose(f.path)}
                >
                  <span className="file-path">{f.path}</span>
                  <span className="muted small">
                    {formatBytes(f.bytes)} · {formatRelative(f.updatedAt)}
                  </span>
                  {cut?.has(f.path) && (
                    <span className="pill pill-warn" data-testid="context-cut" title="Left out of prompts: the context files are more than the model's window holds">
                      cut to fit
                    </span>
                  )}
                </button>
              </li>
            ))}
          </ul>
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
