import type { ProjectFile } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { errorText } from "../api";
import { FileBadge } from "../components/FileBadge";
import { useFileDrop } from "../hooks/useFileDrop";
import { formatBytes, formatRelative } from "../lib/format";
import { fileKind, statusOf, statusText } from "../lib/projectKnowledge";
import { ACCEPTED_FILES, mediaTypeOf, refusal } from "../lib/uploads";
import { projectFilesQuery, useDeleteProjectFile, useReprocessProjectFile, useUploadProjectFile } from "../queries/projects";

/** A file chosen here that is not (or not yet) in the project: uploading, or refused with the reason. */
interface PendingUpload {
  key: string;
  name: string;
  mediaType: string;
  bytes: number;
  status: "uploading" | "failed";
  /** Bytes sent so far. */
  sent: number;
  error?: string;
}

let nextKey = 0;

/**
 * A project's files: dropped here (or chosen) to upload, listed with their type, size and how their
 * text's extraction and indexing went (read again every ~2 s while one processes), processed again
 * when that failed, deleted. A file the server refuses (422 unprocessable, 413 past the project's
 * bound or the quota) is listed with the reason, until dismissed.
 */
export function ProjectFiles({ projectId }: { projectId: string }) {
  const files = useQuery(projectFilesQuery(projectId));
  const upload = useUploadProjectFile(projectId);
  const [pending, setPending] = useState<PendingUpload[]>([]);
  const input = useRef<HTMLInputElement>(null);

  const change = (key: string, patch: Partial<PendingUpload>) => setPending((list) => list.map((u) => (u.key === key ? { ...u, ...patch } : u)));
  const add = async (chosen: File[]) => {
    // A new choice clears the refusals of the last one.
    setPending((list) => list.filter((u) => u.status === "uploading"));
    const entries = chosen.map((file): [File, PendingUpload] => {
      const mediaType = mediaTypeOf(file);
      const refused = refusal(mediaType, file.size);
      const entry: PendingUpload = { key: `up${++nextKey}`, name: file.name, mediaType, bytes: file.size, status: "uploading", sent: 0 };
      return [file, refused ? { ...entry, status: "failed", error: refused } : entry];
    });
    setPending((list) => [...list, ...entries.map(([, e]) => e)]);
    for (const [file, entry] of entries) {
      if (entry.status === "failed") continue;
      try {
        await upload.mutateAsync({ file, onProgress: (sent) => change(entry.key, { sent }) });
        setPending((list) => list.filter((u) => u.key !== entry.key));
      } catch (err) {
        change(entry.key, { status: "failed", error: errorText(err) });
      }
    }
  };
  const drop = useFileDrop((f) => void add(f));
  const list = files.data ?? [];

  return (
    <section className="card project-section" aria-labelledby="project-files-title" data-testid="project-files">
      <h2 id="project-files-title" className="section-title">
        Files
      </h2>
      <p className="muted small">
        Documents (PDF, Word, Excel, PowerPoint, HTML, Markdown, CSV, JSON, text and code) are read and indexed for every thread in this
        project: while the project is small its text goes into each run whole; once larger, each run is given the passages that match, and
        its answer cites them. Images go to each run as they are.
      </p>
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
          accept={ACCEPTED_FILES}
          data-testid="project-file-input"
          onChange={(e) => {
            void add(Array.from(e.target.files ?? []));
            e.target.value = "";
          }}
        />
      </div>
      {files.error && (
        <p className="error-text small" role="alert">
          {errorText(files.error)}
        </p>
      )}
      {files.data && list.length === 0 && <p className="muted small">No files yet.</p>}
      {(list.length > 0 || pending.length > 0) && (
        <ul className="project-file-list">
          {list.map((f) => (
            <FileRow key={f.id} projectId={projectId} file={f} />
          ))}
          {pending.map((u) => (
            <PendingRow key={u.key} upload={u} onDismiss={() => setPending((all) => all.filter((x) => x.key !== u.key))} />
          ))}
        </ul>
      )}
    </section>
  );
}

function FileRow({ projectId, file: f }: { projectId: string; file: ProjectFile }) {
  const remove = useDeleteProjectFile(projectId);
  const reprocess = useReprocessProjectFile(projectId);
  const status = statusOf(f);
  return (
    <li className={`project-file is-${status}`} data-testid="project-file" data-file-id={f.id} data-status={status}>
      <FileBadge mediaType={f.mediaType} />
      <span className="project-file-name">{f.name}</span>
      <span className="muted small project-file-meta">
        {fileKind(f.mediaType)} · {formatBytes(f.bytes)} · {formatRelative(f.createdAt)}
      </span>
      <span className={`project-file-status small is-${status}`} data-testid="project-file-status">
        {statusText(f)}
      </span>
      {status === "failed" && (
        <button
          type="button"
          className="button small"
          data-testid="project-file-reprocess"
          disabled={reprocess.isPending}
          onClick={() => reprocess.mutate(f.id)}
        >
          {reprocess.isPending ? "Starting…" : "Process again"}
          <span className="visually-hidden"> {f.name}</span>
        </button>
      )}
      <button type="button" className="button small ghost" data-testid="project-file-delete" disabled={remove.isPending} onClick={() => remove.mutate(f.id)}>
        Delete<span className="visually-hidden"> {f.name}</span>
      </button>
      {reprocess.error && (
        <span className="error-text small project-file-error" role="alert">
          Could not process it again: {errorText(reprocess.error)}
        </span>
      )}
      {remove.error && (
        <span className="error-text small project-file-error" role="alert">
          {errorText(remove.error)}
        </span>
      )}
    </li>
  );
}

/** A file on its way up, or refused: its name, type and size, with its progress or the reason. */
function PendingRow({ upload: u, onDismiss }: { upload: PendingUpload; onDismiss: () => void }) {
  const percent = u.bytes ? Math.min(100, Math.round((u.sent / u.bytes) * 100)) : 0;
  return (
    <li className={`project-file is-${u.status}`} data-testid="project-upload" data-status={u.status}>
      <FileBadge mediaType={u.mediaType} />
      <span className="project-file-name">{u.name}</span>
      <span className="muted small project-file-meta">
        {fileKind(u.mediaType) || "Unknown type"} · {formatBytes(u.bytes)}
      </span>
      {u.status === "uploading" ? (
        <span className="project-file-status small is-processing" role="status">
          Uploading… {percent}%
        </span>
      ) : (
        <>
          <span className="project-file-status small is-failed" data-testid="project-upload-error" role="alert">
            Not added: {u.error}
          </span>
          <button type="button" className="button small ghost" data-testid="project-upload-dismiss" onClick={onDismiss}>
            Dismiss<span className="visually-hidden"> {u.name}</span>
          </button>
        </>
      )}
    </li>
  );
}
