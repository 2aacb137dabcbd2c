import type { ContextFile } from "@protocol";
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
 * A file's text as the user edits it over the server's (which is shown, and kept current, until the
 * first edit), and whether the server's changed since the edits began: the assistant may write to it.
 */
function useEditedText(file: ContextFile | undefined) {
  /** The text as edited; null until the first edit. */
  const [edited, setEdited] = useState<string | null>(null);
  /** The version the edits started from. */
  const [editedFrom, setEditedFrom] = useState<number | null>(null);
  const original = file?.content ?? "";

  const edit = (text: string) => {
    if (edited === null) setEditedFrom(file?.updatedAt ?? null);
    setEdited(text);
  };

  /** The saved text is now the server's: what follows starts from it. */
  const saved = () => {
    setEdited(null);
    setEditedFrom(null);
  };

  const changedMeanwhile = edited !== null && editedFrom !== null && (file?.updatedAt ?? 0) > editedFrom;
  return { content: edited ?? original, original, edit, saved, changedMeanwhile };
}

/** The file's path: shown for an existing file, typed (and checked: `problem`) for a new one. */
function PathField({ path, newPath, problem, onChange }: { path: string | null; newPath: string; problem: string | null; onChange: (path: string) => void }) {
  const isNew = path === null;
  return (
    <>
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
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={(isNew && newPath !== "" && !!problem) || undefined}
        aria-describedby="context-path-hint"
      />
      <span id="context-path-hint" className="muted small">
        {isNew ? (newPath && problem ? problem : "A new file; the path must end with .md.") : "Editing an existing file."}
      </span>
    </>
  );
}

/** Delete, once confirmed by a button that names the file. */
function DeleteFile({ path, onDelete }: { path: string; onDelete: () => void }) {
  const [confirming, setConfirming] = useState(false);
  if (!confirming) {
    return (
      <button type="button" className="button ghost danger" data-testid="context-delete" onClick={() => setConfirming(true)}>
        Delete
      </button>
    );
  }
  return (
    <>
      <button type="button" className="button danger" data-testid="context-delete-confirm" onClick={onDelete}>
        Delete {path}
      </button>
      <button type="button" className="button ghost" onClick={() => setConfirming(false)}>
        Cancel
      </button>
    </>
  );
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
  const text = useEditedText(file.data);
  const [problem, setProblem] = useState<string | null>(null);

  const isNew = path === null;
  const content = text.content;
  const loading = !isNew && file.isPending;
  const dirty = isNew || content !== text.original;
  const newPathProblem = isNew ? pathProblem(newPath.trim()) : null;

  const submit = () => {
    const target = path ?? newPath.trim();
    if (newPathProblem) return setProblem(newPathProblem);
    setProblem(null);
    save.mutate(
      { path: target, content },
      {
        onSuccess: () => {
          text.saved();
          onSaved(target);
        },
      },
    );
  };

  return (
    <section className="split-editor" aria-label="Editor">
      <PathField path={path} newPath={newPath} problem={newPathProblem} onChange={setNewPath} />
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
        onChange={(e) => text.edit(e.target.value)}
      />
      {text.changedMeanwhile && (
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
        {!isNew && <DeleteFile path={path} onDelete={() => remove.mutate(path, { onSuccess: onDeleted })} />}
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
