import { memo } from "react";
import { sourceAnchor } from "../lib/citationMarks";
import type { NumberedSource } from "../lib/citations";
import { SourceLink } from "./SearchCards";

const QUOTE_CHARS = 220;
/** Passages shown per source; the rest are in a tooltip. */
const QUOTES_SHOWN = 2;

const clip = (text: string) => (text.length > QUOTE_CHARS ? text.slice(0, QUOTE_CHARS - 1) + "…" : text);

/** The numbered sources under a cited answer: what each reference [n] in the text points at. */
export const CitedSources = memo(function CitedSources({ sources, prefix }: { sources: readonly NumberedSource[]; prefix: string }) {
  if (sources.length === 0) return null;
  return (
    <section className="cited-sources" aria-label="Sources" data-testid="cited-sources">
      <h3 className="cited-sources-title">Sources</h3>
      <ol>
        {sources.map((s) => (
          <li key={s.n} id={sourceAnchor(prefix, s.n)} data-testid="cited-source" data-n={s.n} data-url={s.url}>
            <span className="cited-n" aria-hidden="true">[{s.n}]</span>
            <div className="cited-body">
              <SourceLink source={s} />
              {s.quotes.slice(0, QUOTES_SHOWN).map((quote) => (
                <q key={quote} className="cited-quote" title={quote.length > QUOTE_CHARS ? quote : undefined}>
                  {clip(quote)}
                </q>
              ))}
              {s.quotes.length > QUOTES_SHOWN && (
                <span className="muted small" title={s.quotes.slice(QUOTES_SHOWN).join("\n\n")}>
                  and {s.quotes.length - QUOTES_SHOWN} more {s.quotes.length - QUOTES_SHOWN === 1 ? "passage" : "passages"}
                </span>
              )}
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
});
