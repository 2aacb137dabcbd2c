import type { ReactNode } from "react";
import { Link, projectPath } from "../lib/router";

/**
 * One project's threads in the sidebar: a header that folds the group (its name links to the
 * project's page), and its list. "No project" has no page.
 */
export function ProjectGroup({
  id,
  name,
  count,
  open,
  active,
  onToggle,
  onNavigate,
  children,
}: {
  id: string | null;
  name: string;
  count: number;
  open: boolean;
  /** The project's page is the one shown. */
  active: boolean;
  onToggle: () => void;
  onNavigate: () => void;
  children: ReactNode;
}) {
  const listId = `project-group-${id ?? "none"}`;
  return (
    <section className={"project-group" + (open ? " is-open" : "")} data-testid="project-group" data-project-id={id ?? ""} aria-label={name}>
      <div className="project-group-head">
        <button
          type="button"
          className="project-group-toggle"
          data-testid="project-group-toggle"
          aria-expanded={open}
          aria-controls={listId}
          onClick={onToggle}
        >
          <span className="project-group-chevron" aria-hidden="true">
            {open ? "▾" : "▸"}
          </span>
          <span className="visually-hidden">
            {open ? "Fold" : "Unfold"} {id !== null && `${name}, `}
          </span>
          {id === null && (
            <span className="project-group-name">
              {name}
              <span className="visually-hidden">, </span>
            </span>
          )}
          <span className="project-group-count">
            {count}
            <span className="visually-hidden"> {count === 1 ? "thread" : "threads"}</span>
          </span>
        </button>
        {id !== null && (
          <Link
            href={projectPath(id)}
            className="project-group-link"
            data-testid="project-link"
            aria-current={active ? "page" : undefined}
            onClick={onNavigate}
          >
            {name}
          </Link>
        )}
      </div>
      <ul id={listId} className="thread-list" hidden={!open}>
        {children}
      </ul>
      {open && count === 0 && <p className="muted small project-group-empty">No threads yet.</p>}
    </section>
  );
}
