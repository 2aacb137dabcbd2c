import { placeOf, type KnowledgeResult } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { errorText } from "../api";
import { formatScore, passageIsLong } from "../lib/projectKnowledge";
import { projectSearchQuery } from "../queries/projects";

/**
 * "What would retrieval give for…": the passages of the project's files a run would be given for a
 * question (GET /api/projects/:projectId/search), each with its file, place and score.
 */
export function ProjectSearch({ projectId }: { projectId: string }) {
  const [text, setText] = useState("");
  const [asked, setAsked] = useState("");
  const search = useQuery(projectSearchQuery(projectId, asked));
  const helpId = useId();

  const submit = () => {
    const q = text.trim();
    if (!q) return;
    // The same question again is asked again (the files may have changed since).
    if (q === asked) void search.refetch();
    else setAsked(q);
  };

  return (
    <section className="card project-section" aria-labelledby="project-search-title" data-testid="project-search">
      <h2 id="project-search-title" className="section-title">
        <label htmlFor="project-search-input">What would retrieval give for…</label>
      </h2>
      <p className="muted small" id={helpId}>
        The passages of this project's files that best match a question, as a run in the project would be given them.
      </p>
      <form
        className="project-search-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <input
          id="project-search-input"
          className="text-input"
          type="search"
          data-testid="project-search-input"
          placeholder="A question, or its key words"
          aria-describedby={helpId}
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <button type="submit" className="button small primary" data-testid="project-search-submit" disabled={!text.trim()}>
          Search
        </button>
      </form>
      {asked && search.isFetching && (
        <p className="muted small" role="status">
          Searching…
        </p>
      )}
      {search.error && (
        <p className="error-text small" role="alert">
          {errorText(search.error)}
        </p>
      )}
      {search.data && search.data.length === 0 && (
        <p className="muted small" data-testid="project-search-empty">
          Nothing in this project's files matches “{asked}”.
        </p>
      )}
      {search.data && search.data.length > 0 && (
        <ol className="project-search-results" aria-label={`Passages for “${asked}”`}>
          {search.data.map((r, i) => (
            <SearchResult key={`${r.fileId}-${i}`} result={r} />
          ))}
        </ol>
      )}
    </section>
  );
}

export function SearchResult({ result: r }: { result: KnowledgeResult }) {
  const [expanded, setExpanded] = useState(false);
  const long = passageIsLong(r.text);
  return (
    <li className="project-search-result" data-testid="project-search-result" data-file-id={r.fileId}>
      <div className="project-search-head">
        <span className="project-search-name">{r.name}</span>
        <span className="muted small project-search-place">{placeOf(r.location)}</span>
        <span className="muted project-search-score" title="Relevance (BM25): higher is better">
          score {formatScore(r.score)}
        </span>
      </div>
      <p className={"project-search-text" + (long && !expanded ? " is-clamped" : "")} data-testid="project-search-text">
        {r.text}
      </p>
      {long && (
        <button type="button" className="link-button small" aria-expanded={expanded} onClick={() => setExpanded((e) => !e)}>
          {expanded ? "Show less" : "Show all"}
        </button>
      )}
    </li>
  );
}
