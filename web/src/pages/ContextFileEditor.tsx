import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorDetails } from "../components/ErrorDetails";
import { contextFileQuery, useDeleteContextFile, useSaveContextFile } from "../queries/contextFiles";

/** Why a new file's path is not acceptable, or null. */
function pathProblem(path: string): string | null {
  if (!path) return "Give the file a path.";
  if (!path.endsWith(".md")) return "The path must end with .md.";
  if (path.startsWith("/") || path.split("/").some((s) => s === ".." || s === "." || s === "")) {
    return "Use a relative path such as notes/project.md.";
  }
  return null;
}

/**
 * One context file's path and text (`path` null: a new file). The page mounts one per file, so
 * its edits start from the server's text each time.
 */
export function ContextFileEditor({
  path,
  outcome,
  onSaved,
  onDeleted,
}: {
  path: string | null;
  outcome: string | null;
  onSaved: (path: string) => void;
  onDeleted: () => void;
}) {
  const file = useQuery({ ...contextFileQuery(path ?? ""), enabled: path !== null });
  const save = useSaveContextFile();
  const remove = useDeleteContextFile();
  const [newPath, setNewPath] = useState("");
  /** The text as edited; null until the first edit (the server's text is shown, kept current). */
  const [edited, setEdited] = useState<string | null>(null);
  /** The version the edits started from: the assistant may change the file meanwhile. */
  const [editedFrom, setEditedFrom] = useState<number | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);

  const isNew = path === null;
  const original = file.data?.content ?? "";
  const content = edited ?? original;
  const loading = !isNew && file.isPending;
  const dirty = isNew || content !== original;
  const newPathProblem = isNew ? pathProblem(newPath.trim()) : null;
  const changedMeanwhile = edited !== null && editedFrom !== null && (file.data?.updatedAt ?? 0) > editedFrom;

  const edit = (text: string) => {
    if (edited === null) setEditedFrom(file.data?.updatedAt ?? null);
    setEdited(text);
  };

  const submit = () => {
    const target = path ?? newPath.trim();
    if (newPathProblem) return setProblem(newPathProblem);
    setProblem(null);
    save.mutate(
      { path: target, content },
      {
        onSuccess: () => {
          // The saved text is now the server's: what follows starts from it.
          setEdited(null);
          setEditedFrom(null);
          onSaved(target);
        },
      },
    );
  };

  return (
    <section className="split-editor" aria-label="Editor">
      <label htmlFor="context-path" className="small">
        Path
      </label>
      <input
        id="context-path"
        data-testid="context-path"
        className="text-input"
        placeholder="notes/project.md"
        value={path ?? newPath}
        readOnly={!isNew}
        onChange={(e) => setNewPath(e.target.value)}
        aria-invalid={(isNew && newPath !== "" && !!newPathProblem) || undefined}
        aria-describedby="context-path-hint"
      />
      <span id="context-path-hint" className="muted small">
        {isNew ? (newPath && newPathProblem ? newPathProblem : "A new file; the path must end with .md.") : "Editing an existing file."}
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
        disabled={loading}
        onChange={(e) => edit(e.target.value)}
      />
      {changedMeanwhile && (
        <div className="inline-note small" role="status" data-testid="context-changed-meanwhile">
          This file changed since you started editing (the assistant may have written to it). Saving replaces that version with yours.
        </div>
      )}
      {problem && (
        <div className="inline-alert" role="alert">
          {problem}
        </div>
      )}
      <ErrorDetails error={file.error ?? save.error ?? remove.error} />
      <div className="row-actions">
        <button
          type="button"
          className="button primary"
          data-testid="context-save"
          onClick={submit}
          disabled={save.isPending || loading || !dirty}
        >
          {save.isPending ? "Saving…" : "Save"}
        </button>
        {!isNew &&
          (confirmDelete ? (
            <>
              <button
                type="button"
                className="button danger"
                data-testid="context-delete-confirm"
                onClick={() => remove.mutate(path, { onSuccess: onDeleted })}
              >
                Delete {path}
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
        {outcome && !save.isPending && (
          <span className="ok-text small" role="status">
            {outcome}
          </span>
        )}
        {!isNew && dirty && <span className="muted small">Unsaved changes</span>}
      </div>
    </section>
  );
}
