import { useEffect, useRef, useState } from "react";
import { request } from "../api";
import { ErrorDetails } from "../components/ErrorDetails";
import { useAsync } from "../hooks/useAsync";
import { formatBytes, formatRelative } from "../lib/format";

/** Why a new file's path is not acceptable, or null. */
function pathProblem(path: string): string | null {
  if (!path) return "Give the file a path.";
  if (!path.endsWith(".md")) return "The path must end with .md.";
  if (path.startsWith("/") || path.split("/").some((s) => s === ".." || s === "." || s === "")) {
    return "Use a relative path such as notes/project.md.";
  }
  return null;
}

export default function ContextPage() {
  const files = useAsync(() => request("GET /api/context").then((r) => r.files), []);
  const [selected, setSelected] = useState<string | null>(null);
  const [path, setPath] = useState("");
  const [content, setContent] = useState("");
  const [original, setOriginal] = useState("");
  const [loadingFile, setLoadingFile] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  /** A new file that was just saved becomes the selection: its text is known, its "Saved" stays. */
  const savedNew = useRef<string | null>(null);

  useEffect(() => {
    if (selected !== null && savedNew.current === selected) {
      savedNew.current = null;
      return;
    }
    savedNew.current = null;
    setConfirmDelete(false);
    setStatus(null);
    setError(null);
    if (selected === null) return;
    let cancelled = false;
    setLoadingFile(true);
    request("GET /api/context/:path", { params: { path: selected } })
      .then(({ file: { content: text } }) => {
        if (cancelled) return;
        setContent(text);
        setOriginal(text);
      })
      .catch((err) => !cancelled && setError(err))
      .finally(() => !cancelled && setLoadingFile(false));
    return () => {
      cancelled = true;
    };
  }, [selected]);

  const dirty = content !== original || selected === null;
  const problem = selected === null ? pathProblem(path.trim()) : null;

  const startNew = () => {
    setSelected(null);
    setPath("");
    setContent("");
    setOriginal("");
    setError(null);
    setStatus(null);
  };

  const open = (p: string) => {
    setSelected(p);
    setPath(p);
  };

  const save = async () => {
    const target = selected ?? path.trim();
    if (selected === null && problem) {
      setError(new Error(problem));
      return;
    }
    setSaving(true);
    setError(null);
    setStatus(null);
    try {
      await request("PUT /api/context/:path", { params: { path: target }, body: { content } });
      setOriginal(content);
      setStatus("Saved");
      files.reload();
      if (selected === null) {
        savedNew.current = target;
        setSelected(target);
        setPath(target);
      }
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };

  const remove = async () => {
    if (selected === null) return;
    setError(null);
    try {
      await request("DELETE /api/context/:path", { params: { path: selected } });
      files.reload();
      startNew();
      setStatus("Deleted");
    } catch (err) {
      setError(err);
    }
  };

  const list = [...(files.data ?? [])].sort((a, b) => a.path.localeCompare(b.path));

  return (
    <div className="page">
      <header className="page-header">
        <h1>Context</h1>
        <p className="muted">Markdown files that the context plugin injects into every prompt's system section.</p>
      </header>
      <div className="split">
        <section className="split-list" aria-label="Context files">
          <button type="button" className="button small" data-testid="context-new" onClick={startNew}>
            + New file
          </button>
          {files.loading && !files.data && <p className="muted small">Loading…</p>}
          {files.error && <div className="inline-alert" role="alert">{files.error}</div>}
          {files.data && list.length === 0 && <p className="muted small">No context files yet.</p>}
          <ul className="file-list">
            {list.map((f) => (
              <li key={f.path}>
                <button
                  type="button"
                  className={"file-row" + (f.path === selected ? " is-active" : "")}
                  data-testid="context-file"
                  data-path={f.path}
                  aria-current={f.path === selected ? "true" : undefined}
                  onClick={() => open(f.path)}
                >
                  <span className="file-path">{f.path}</span>
                  <span className="muted small">
                    {formatBytes(f.bytes)} · {formatRelative(f.updatedAt)}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </section>

        <section className="split-editor" aria-label="Editor">
          <label htmlFor="context-path" className="small">
            Path
          </label>
          <input
            id="context-path"
            data-testid="context-path"
            className="text-input"
            placeholder="notes/project.md"
            value={path}
            readOnly={selected !== null}
            onChange={(e) => setPath(e.target.value)}
            aria-invalid={(selected === null && path !== "" && !!problem) || undefined}
            aria-describedby="context-path-hint"
          />
          <span id="context-path-hint" className="muted small">
            {selected === null ? (path && problem ? problem : "A new file; the path must end with .md.") : "Editing an existing file."}
          </span>
          <label htmlFor="context-editor" className="small">
            Content
          </label>
          <textarea
            id="context-editor"
            data-testid="context-editor"
            className="code-input editor"
            spellCheck={false}
            value={content}
            disabled={loadingFile}
            onChange={(e) => setContent(e.target.value)}
          />
          <ErrorDetails error={error} />
          <div className="row-actions">
            <button
              type="button"
              className="button primary"
              data-testid="context-save"
              onClick={() => void save()}
              disabled={saving || loadingFile || (selected !== null && !dirty)}
            >
              {saving ? "Saving…" : "Save"}
            </button>
            {selected !== null &&
              (confirmDelete ? (
                <>
                  <button type="button" className="button danger" data-testid="context-delete-confirm" onClick={() => void remove()}>
                    Delete {selected}
                  </button>
                  <button type="button" className="button ghost" onClick={() => setConfirmDelete(false)}>
                    Cancel
                  </button>
                </>
              ) : (
                <button type="button" className="button ghost danger" data-testid="context-delete" onClick={() => setConfirmDelete(true)}>
                  Delete
                </button>
              ))}
            {status && (
              <span className="ok-text small" role="status">
                {status}
              </span>
            )}
            {selected !== null && dirty && <span className="muted small">Unsaved changes</span>}
          </div>
        </section>
      </div>
    </div>
  );
}
