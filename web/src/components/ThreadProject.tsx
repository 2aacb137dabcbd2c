import type { Thread } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { errorText } from "../api";
import { Link, projectPath } from "../lib/router";
import { projectsQuery } from "../queries/projects";
import { usePatchThread } from "../queries/threadMutations";

/** The project a thread is in: moved into another, or out of any (null). */
export function ThreadProject({ thread }: { thread: Thread }) {
  const projects = useQuery(projectsQuery);
  const patch = usePatchThread();
  const [error, setError] = useState<string | null>(null);
  const current = thread.projectId ?? "";
  return (
    <section className="settings-section" aria-labelledby="thread-project-label">
      <label id="thread-project-label" htmlFor="thread-project" className="field-label">
        Project
      </label>
      <p className="muted small">A project's instructions, files and memory go with every message of its threads.</p>
      <div className="settings-row">
        <select
          id="thread-project"
          className="select"
          data-testid="thread-project"
          value={current}
          disabled={patch.isPending || projects.isPending}
          onChange={(e) => {
            setError(null);
            patch.mutate({ id: thread.id, projectId: e.target.value || null }, { onError: (err) => setError(`Could not move the thread: ${errorText(err)}`) });
          }}
        >
          <option value="">No project</option>
          {(projects.data ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        {current && (
          <Link href={projectPath(current)} className="small">
            Open the project
          </Link>
        )}
      </div>
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
