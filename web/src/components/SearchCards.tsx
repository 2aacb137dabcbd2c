import { WEB_SEARCH_TOOL, type WebSource } from "@protocol";
import { memo, useState } from "react";
import { describeWebCall, domainOf, safeHref, type WebCall } from "../lib/webActivity";

/** Sources shown before "Show N more". */
const FIRST_SOURCES = 3;

/** A source: its title and domain, opening in a new tab (or plain text when its URL is not http). */
export function SourceLink({ source }: { source: Pick<WebSource, "url" | "title"> }) {
  const href = safeHref(source.url);
  const domain = domainOf(source.url);
  const label = (
    <>
      <span className="source-title">{source.title || domain}</span>{" "}
      <span className="source-domain">{domain}</span>
    </>
  );
  if (!href) return <span className="source-link" title={source.url}>{label}</span>;
  return (
    <a className="source-link" href={href} target="_blank" rel="noopener noreferrer" title={source.url}>
      {label}
    </a>
  );
}

const ICON: Record<string, string> = { web_search: "⌕", web_fetch: "↧" };

/** One web search or fetch of the run: what it looked for, what it found, or why it failed. */
export const SearchCard = memo(function SearchCard({ call }: { call: WebCall }) {
  const [open, setOpen] = useState(false);
  const { verb, subject, state } = describeWebCall(call);
  const shown = open ? call.sources : call.sources.slice(0, FIRST_SOURCES);
  const more = call.sources.length - shown.length;
  return (
    <div
      className={`tool-card search-card is-${state}`}
      data-testid="search-card"
      data-tool={call.toolName}
      data-state={state}
      data-tool-use-id={call.toolUseId}
    >
      <div className="search-head">
        <span className={"search-icon" + (state === "running" ? " pulse" : "")} aria-hidden="true">
          {state === "failed" ? "!" : (ICON[call.toolName] ?? "⌕")}
        </span>
        <span className="search-title">
          <strong>
            {verb}
            {call.error ? `: ${call.error}` : subject ? ":" : ""}
          </strong>{" "}
          {subject && !call.error && <span className="search-subject">{subject}</span>}
          {state === "running" && "…"}
        </span>
        {call.done && !call.error && call.toolName === WEB_SEARCH_TOOL && (
          <span className="search-count muted small">
            {call.sources.length} {call.sources.length === 1 ? "result" : "results"}
          </span>
        )}
      </div>
      {call.error && subject && <div className="search-subject muted small">{subject}</div>}
      {shown.length > 0 && (
        <ul className="search-sources" aria-label={`Sources of “${subject || verb}”`}>
          {shown.map((s, i) => (
            <li key={`${s.url}#${i}`}>
              <SourceLink source={s} />
              {s.pageAge && <span className="source-age muted">{s.pageAge}</span>}
            </li>
          ))}
        </ul>
      )}
      {call.sources.length > FIRST_SOURCES && (
        <button type="button" className="link-button small" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
          {open ? "Show fewer" : `Show ${more} more`}
        </button>
      )}
    </div>
  );
});

/** The run's searches and fetches, in the order they ran. */
export function SearchCards({ calls }: { calls: readonly WebCall[] }) {
  if (calls.length === 0) return null;
  return (
    <div className="search-cards">
      {calls.map((c) => (
        <SearchCard key={c.toolUseId} call={c} />
      ))}
    </div>
  );
}
