import type { ProjectFile } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { errorText } from "../api";
import { useFileDrop } from "../hooks/useFileDrop";
import { formatBytes, formatRelative } from "../lib/format";
import { mediaTypeOf, refusal } from "../lib/uploads";
import { projectFilesQuery, useDeleteProjectFile, useUploadProjectFile } from "../queries/projects";

/** A project's files: dropped here (or chosen) to upload, listed, deleted. */
export function ProjectFiles({ projectId }: { projectId: string }) {
  const files = useQuery(projectFilesQuery(projectId));
  const upload = useUploadProjectFile(projectId);
  const [uploading, setUploading] = useState<string[]>([]);
  const [errors, setErrors] = useState<string[]>([]);
  const input = useRef<HTMLInputElement>(null);

  const add = async (chosen: File[]) => {
    setErrors([]);
    for (const file of chosen) {
      const refused = refusal(mediaTypeOf(file), file.size);
      if (refused) {
        setErrors((e) => [...e, `${file.name}: ${refused}`]);
        continue;
      }
      setUploading((u) => [...u, file.name]);
      try {
        await upload.mutateAsync(file);
      } catch (err) {
        setErrors((e) => [...e, `${file.name}: ${errorText(err)}`]);
      } finally {
        setUploading((u) => u.filter((n) => n !== file.name));
      }
    }
  };
  const drop = useFileDrop((f) => void add(f));

  return (
    <section className="card project-section" aria-labelledby="project-files-title" data-testid="project-files">
      <h2 id="project-files-title" className="section-title">
        Files
      </h2>
      <p className="muted small">Text, Markdown and CSV files go into the system prompt of every run in this project; images and PDFs are named there.</p>
      <div className={"drop-zone" + (drop.dragging ? " is-dropping" : "")} data-testid="project-drop" {...drop.handlers}>
        <span>Drop files here, or</span>{" "}
        <button type="button" className="button small" data-testid="project-file-choose" onClick={() => input.current?.click()}>
          choose files
        </button>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          data-testid="project-file-input"
          onChange={(e) => {
            void add(Array.from(e.target.files ?? []));
            e.target.value = "";
          }}
        />
      </div>
      {uploading.length > 0 && (
        <p className="muted small" role="status">
          Uploading {uploading.join(", ")}…
        </p>
      )}
      {errors.map((e) => (
        <p key={e} className="error-text small" role="alert">
          {e}
        </p>
      ))}
      {files.error && (
        <p className="error-text small" role="alert">
          {errorText(files.error)}
        </p>
      )}
      {files.data && files.data.length === 0 && <p className="muted small">No files yet.</p>}
      {files.data && files.data.length > 0 && (
        <ul className="project-file-list">
          {files.data.map((f) => (
            <FileRow key={f.id} projectId={projectId} file={f} />
          ))}
        </ul>
      )}
    </section>
  );
}

function FileRow({ projectId, file: f }: { projectId: string; file: ProjectFile }) {
  const remove = useDeleteProjectFile(projectId);
  return (
    <li className="project-file" data-testid="project-file" data-file-id={f.id}>
      <span className="project-file-name">{f.name}</span>
      <span className="muted small">
        {formatBytes(f.bytes)} · {formatRelative(f.createdAt)}
      </span>
      <button type="button" className="button small ghost" data-testid="project-file-delete" disabled={remove.isPending} onClick={() => remove.mutate(f.id)}>
        Delete<span className="visually-hidden"> {f.name}</span>
      </button>
      {remove.error && (
        <span className="error-text small" role="alert">
          {errorText(remove.error)}
        </span>
      )}
    </li>
  );
}
