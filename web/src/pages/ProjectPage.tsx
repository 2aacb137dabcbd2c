import { MAX_INSTRUCTIONS_CHARS, MEMORY_DIR, type Project } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { ApiError, errorText } from "../api";
import { formatBytes, formatRelative } from "../lib/format";
import { Link, navigate, threadPath } from "../lib/router";
import { contextFilesQuery } from "../queries/contextFiles";
import { projectQuery, useDeleteProject, usePatchProject } from "../queries/projects";
import { useCreateThread } from "../queries/threadMutations";
import { useThreadList } from "../queries/threads";
import { ProjectFiles } from "./ProjectFiles";
import { ProjectSearch } from "./ProjectSearch";

/** A project's own page: its instructions, files, memory and threads, and a new thread in it. */
export default function ProjectPage({ projectId }: { projectId: string }) {
  const query = useQuery(projectQuery(projectId));
  const project = query.data;
  const createThread = useCreateThread();

  if (query.error instanceof ApiError && query.error.status === 404) {
    return (
      <div className="page" data-testid="project-page">
        <h1>Project not found</h1>
        <p className="muted">It may have been deleted.</p>
      </div>
    );
  }
  if (!project) {
    return (
      <div className="page" data-testid="project-page">
        {query.error ? (
          <p className="inline-alert" role="alert">
            {errorText(query.error)}
          </p>
        ) : (
          <p className="muted">Loading…</p>
        )}
      </div>
    );
  }

  const newThread = () => createThread.mutate({ projectId }, { onSuccess: (t) => navigate(threadPath(t.id)) });

  return (
    <div className="page project-page" data-testid="project-page" data-project-id={projectId}>
      <header className="page-header project-header">
        <div>
          <h1 data-testid="project-name">{project.name}</h1>
          <p className="muted">Threads in this project share its instructions, its files and its memory.</p>
        </div>
        <button type="button" className="button primary" data-testid="project-new-thread" disabled={createThread.isPending} onClick={newThread}>
          <span aria-hidden="true">+</span> New thread in this project
        </button>
      </header>
      {createThread.error && (
        <p className="error-text small" role="alert">
          {errorText(createThread.error)}
        </p>
      )}
      <ProjectInstructions key={project.id} project={project} />
      <ProjectFiles projectId={projectId} />
      <ProjectSearch projectId={projectId} />
      <ProjectThreads projectId={projectId} />
      <ProjectMemory projectId={projectId} />
      <DeleteProject project={project} />
    </div>
  );
}

function ProjectInstructions({ project }: { project: Project }) {
  const [text, setText] = useState(project.instructions);
  const patch = usePatchProject();
  const [saved, setSaved] = useState(false);
  const tooLong = text.length > MAX_INSTRUCTIONS_CHARS;
  const changed = text !== project.instructions;
  return (
    <form
      className="card project-section"
      onSubmit={(e) => {
        e.preventDefault();
        setSaved(false);
        if (changed && !tooLong) patch.mutate({ id: project.id, instructions: text }, { onSuccess: () => setSaved(true) });
      }}
    >
      <h2 className="section-title">
        <label htmlFor="project-instructions">Instructions</label>
      </h2>
      <p className="muted small" id="project-instructions-help">
        For every thread of the project: they go into the system prompt after your context files, before a thread's own instructions.
      </p>
      <textarea
        id="project-instructions"
        className="text-input instructions-input"
        data-testid="project-instructions"
        rows={6}
        value={text}
        aria-describedby="project-instructions-help"
        aria-invalid={tooLong || undefined}
        onChange={(e) => {
          setText(e.target.value);
          setSaved(false);
        }}
      />
      <div className="settings-row">
        <span className={"small " + (tooLong ? "error-text" : "muted")}>
          {text.length.toLocaleString()} / {MAX_INSTRUCTIONS_CHARS.toLocaleString()} characters
        </span>
        <button type="submit" className="button small primary" data-testid="project-instructions-save" disabled={!changed || tooLong || patch.isPending}>
          {patch.isPending ? "Saving…" : "Save"}
        </button>
      </div>
      {saved && !changed && (
        <p className="ok-text small" role="status" data-testid="project-instructions-saved">
          Saved. They apply from each thread's next message.
        </p>
      )}
      {patch.error && (
        <p className="error-text small" role="alert">
          Could not save: {errorText(patch.error)}
        </p>
      )}
    </form>
  );
}

function ProjectThreads({ projectId }: { projectId: string }) {
  const { threads, list } = useThreadList(false);
  const mine = useMemo(() => threads.filter((t) => t.projectId === projectId).sort((a, b) => b.lastActivity - a.lastActivity), [threads, projectId]);
  return (
    <section className="card project-section" aria-labelledby="project-threads-title" data-testid="project-threads">
      <h2 id="project-threads-title" className="section-title">
        Threads
      </h2>
      {list.isPending && <p className="muted small">Loading…</p>}
      {list.isSuccess && mine.length === 0 && <p className="muted small">No threads yet. Start one, or move one here from its settings.</p>}
      {mine.length > 0 && (
        <ul className="project-thread-list">
          {mine.map((t) => (
            <li key={t.id}>
              <Link href={threadPath(t.id)} data-testid="project-thread" data-thread-id={t.id}>
                {t.name}
              </Link>{" "}
              <span className="muted small">{formatRelative(t.lastActivity)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The assistant's notes in this project (the memory tool's folder for its threads), read-only here. */
function ProjectMemory({ projectId }: { projectId: string }) {
  const files = useQuery(contextFilesQuery);
  const prefix = `${MEMORY_DIR}/projects/${projectId}/`;
  const notes = (files.data?.files ?? []).filter((f) => f.path.startsWith(prefix)).sort((a, b) => a.path.localeCompare(b.path));
  return (
    <section className="card project-section" aria-labelledby="project-memory-title" data-testid="project-memory">
      <h2 id="project-memory-title" className="section-title">
        Memory
      </h2>
      <p className="muted small">
        What the assistant noted in this project's threads, with its memory tool. It reads them in every thread of the project. Edit or
        delete them on the <Link href="/context">Context page</Link>.
      </p>
      {files.data && notes.length === 0 && <p className="muted small">No notes yet.</p>}
      {notes.length > 0 && (
        <ul className="project-file-list">
          {notes.map((f) => (
            <li key={f.path} className="project-file" data-testid="project-note">
              <Link href="/context" className="project-file-name">
                {f.path.slice(prefix.length)}
              </Link>
              <span className="muted small">
                {formatBytes(f.bytes)} · {formatRelative(f.updatedAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function DeleteProject({ project }: { project: Project }) {
  const [confirming, setConfirming] = useState(false);
  const remove = useDeleteProject();
  return (
    <section className="card project-section danger-zone" aria-labelledby="project-delete-title">
      <h2 id="project-delete-title" className="section-title">
        Delete the project
      </h2>
      <p className="muted small">Its files are deleted; its threads stay, out of any project.</p>
      {confirming ? (
        <div className="settings-row" role="group" aria-label={`Delete ${project.name}?`}>
          <button
            type="button"
            className="button small danger"
            data-testid="project-delete-confirm"
            disabled={remove.isPending}
            onClick={() => remove.mutate(project.id, { onSuccess: () => navigate("/", { replace: true }) })}
          >
            Delete {project.name}
          </button>
          <button type="button" className="button small ghost" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" className="button small danger" data-testid="project-delete" onClick={() => setConfirming(true)}>
          Delete project…
        </button>
      )}
      {remove.error && (
        <p className="error-text small" role="alert">
          {errorText(remove.error)}
        </p>
      )}
    </section>
  );
}
