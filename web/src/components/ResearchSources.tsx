import type { ResearchSource } from "@protocol";
import { useId } from "react";
import { SourceLink } from "./SearchCards";

/**
 * What one sub-question's task found so far: a count that opens the list, each source a link that
 * opens in a new tab, those the task read marked as read. `open` is decided by the row (it follows
 * the research until the reader chooses).
 */
export function ResearchSources({
  sources,
  open,
  onToggle,
  label,
}: {
  sources: readonly ResearchSource[];
  open: boolean;
  onToggle: () => void;
  /** Whose sources they are, for a screen reader ("sub-question 2"). */
  label: string;
}) {
  const listId = useId();
  const count = `${sources.length} ${sources.length === 1 ? "source" : "sources"}`;
  if (sources.length === 0) return null;
  return (
    <div className="research-sources">
      <button
        type="button"
        className="link-button small research-sources-toggle"
        data-testid="research-sources-toggle"
        aria-expanded={open}
        aria-controls={listId}
        onClick={onToggle}
      >
        <span aria-hidden="true">{open ? "▾" : "▸"}</span> {count}
        <span className="visually-hidden"> of {label}</span>
      </button>
      <ul id={listId} className="search-sources research-source-list" hidden={!open} aria-label={`Sources of ${label}`}>
        {sources.map((s) => (
          <li key={s.url} data-testid="research-source" data-fetched={s.fetched ? "true" : undefined}>
            <SourceLink source={s} />
            {s.fetched && (
              <span className="source-age muted" title="The task read this page">
                read
              </span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
