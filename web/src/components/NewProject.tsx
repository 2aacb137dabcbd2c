import { useState } from "react";
import { errorText } from "../api";
import { navigate, projectPath } from "../lib/router";
import { useCreateProject } from "../queries/projects";

/** "New project": a name, then the project's page (where its instructions and files go). */
export function NewProject({ onNavigate }: { onNavigate: () => void }) {
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState("");
  const create = useCreateProject();

  if (!naming) {
    return (
      <button type="button" className="button ghost small new-project" data-testid="new-project" onClick={() => setNaming(true)}>
        <span aria-hidden="true">+</span> New project
      </button>
    );
  }
  return (
    <form
      className="new-project-form"
      onSubmit={(e) => {
        e.preventDefault();
        const trimmed = name.trim();
        if (!trimmed) return;
        create.mutate(
          { name: trimmed },
          {
            onSuccess: (project) => {
              setNaming(false);
              setName("");
              navigate(projectPath(project.id));
              onNavigate();
            },
          },
        );
      }}
    >
      <label htmlFor="new-project-name" className="visually-hidden">
        Name of the new project
      </label>
      <input
        id="new-project-name"
        className="text-input small-input"
        data-testid="new-project-name"
        autoFocus
        placeholder="Project name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        onKeyDown={(e) => e.key === "Escape" && setNaming(false)}
      />
      <button type="submit" className="button small primary" data-testid="new-project-create" disabled={!name.trim() || create.isPending}>
        Create
      </button>
      <button type="button" className="button small ghost" onClick={() => setNaming(false)}>
        Cancel
      </button>
      {create.error && (
        <p className="error-text small" role="alert">
          {errorText(create.error)}
        </p>
      )}
    </form>
  );
}
