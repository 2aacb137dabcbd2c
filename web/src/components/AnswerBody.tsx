import type { CodeRunView, DocumentCitation } from "@protocol";
import { useMemo, type ReactNode } from "react";
import { numberCitations } from "../lib/citations";
import type { WebView } from "../lib/webActivity";
import { CitedSources } from "./CitedSources";
import { CodeCards } from "./CodeCard";
import { DocumentCitations } from "./DocumentCitations";
import { Markdown } from "./Markdown";
import { SearchCards } from "./SearchCards";

/**
 * An answer's body, streaming or stored alike: the searches and fetches it made, the code it ran, its
 * text with numbered references, the project passages it cites (chips), and the sources the
 * references point at. `prefix` makes the references' targets unique on the page.
 */
export function AnswerBody({
  text,
  web,
  documents = null,
  code = null,
  codeActive = false,
  prefix,
  children,
}: {
  text: string;
  web: WebView | null;
  /** The project passages it cites (metadata.citations, or live citations of knowledge: sources). */
  documents?: readonly DocumentCitation[] | null;
  /** Its code runs (code cards). */
  code?: readonly CodeRunView[] | null;
  /** Its run still goes: a code run without output is running (else it was stopped). */
  codeActive?: boolean;
  prefix: string;
  /** Shown in the bubble after the text (the streaming caret). */
  children?: ReactNode;
}) {
  // While streaming, only the citations whose passage has arrived are numbered.
  const citations = useMemo(() => numberCitations(web?.citations ?? [], text.length), [web, text.length]);
  return (
    <>
      {web && <SearchCards calls={web.calls} />}
      {code && <CodeCards runs={code} active={codeActive} />}
      <div className="bubble bubble-assistant">
        {text && <Markdown text={text} citations={citations} citePrefix={prefix} />}
        {children}
      </div>
      <DocumentCitations citations={documents} />
      <CitedSources sources={citations.sources} prefix={prefix} />
    </>
  );
}
