import type { Artifact } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { memo, useLayoutEffect, useMemo, useRef, useState } from "react";
import { errorText } from "../api";
import { useThrottled } from "../hooks/useThrottled";
import { htmlFrame, mermaidFrame, svgFrame } from "../lib/artifactFrame";
import { languageKey } from "../lib/artifacts";
import { highlight } from "../lib/markdown";
import { mermaidLibraryQuery } from "../queries/artifacts";
import { Markdown } from "./Markdown";
import { SandboxFrame } from "./SandboxFrame";

/**
 * An artifact's content as its type shows it: markdown through the app's sanitizer, code
 * highlighted, HTML and SVG in a sandboxed frame, Mermaid drawn in one (or its source and the
 * parser's message when it does not parse).
 */
export const ArtifactView = memo(function ArtifactView({ artifact: a }: { artifact: Artifact }) {
  const key = `${a.id}:${a.version}`;
  switch (a.type) {
    case "markdown":
      return (
        <div className="artifact-scroll" data-testid="artifact-content" data-type="markdown">
          <Markdown text={a.content} className="artifact-markdown" />
        </div>
      );
    case "code":
      return <CodeView key={key} content={a.content} language={a.language} />;
    case "html":
    case "svg":
      return <PageView key={key} artifact={a} />;
    case "mermaid":
      return <MermaidView key={key} source={a.content} title={a.title} />;
    default:
      return <SourceView content={a.content} />;
  }
});

function CodeView({ content, language }: { content: string; language: string | null }) {
  // highlight.js escapes what it does not mark up: its HTML holds only its own spans.
  const html = useMemo(() => highlight(content, languageKey(language)), [content, language]);
  return (
    <div className="artifact-scroll" data-testid="artifact-content" data-type="code">
      <pre className="artifact-code">
        <code className={"hljs" + (language ? ` language-${languageKey(language)}` : "")} dangerouslySetInnerHTML={{ __html: html }} />
      </pre>
    </div>
  );
}

/**
 * The content of an artifact being written, as source (nothing of it is rendered or run until it is
 * whole), redrawn at most every 120 ms; kept scrolled to its end while the reader is there.
 */
export function DraftSource({ content }: { content: string }) {
  const shown = useThrottled(content, 120);
  const scroller = useRef<HTMLDivElement>(null);
  const atEnd = useRef(true);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && atEnd.current) el.scrollTop = el.scrollHeight;
  }, [shown]);
  return (
    <div
      ref={scroller}
      className="artifact-scroll"
      data-testid="artifact-content"
      data-type="source"
      data-draft="true"
      onScroll={(e) => {
        const el = e.currentTarget;
        atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      <pre className="artifact-code">
        {shown}
        <span className="caret" aria-hidden="true" />
      </pre>
    </div>
  );
}

function SourceView({ content }: { content: string }) {
  return (
    <div className="artifact-scroll" data-testid="artifact-content" data-type="source">
      <pre className="artifact-code">{content}</pre>
    </div>
  );
}

function PageView({ artifact: a }: { artifact: Artifact }) {
  const doc = useMemo(() => (a.type === "svg" ? svgFrame(a.content) : htmlFrame(a.content)), [a.type, a.content]);
  return (
    <div className="artifact-stage" data-testid="artifact-content" data-type={a.type}>
      <SandboxFrame doc={doc} title={a.title} />
    </div>
  );
}

function MermaidView({ source, title }: { source: string; title: string }) {
  const library = useQuery(mermaidLibraryQuery);
  const [error, setError] = useState<string | null>(null);
  const doc = useMemo(() => (library.data ? mermaidFrame(source, library.data) : null), [source, library.data]);
  return (
    <div className="artifact-stage" data-testid="artifact-content" data-type="mermaid" data-state={error ? "error" : doc ? "drawn" : "loading"}>
      {library.isPending && <p className="loading-line">Loading the diagram library…</p>}
      {library.error && (
        <p className="inline-alert artifact-alert" role="alert">
          {errorText(library.error)}
        </p>
      )}
      {error && (
        <div className="artifact-scroll" data-testid="artifact-mermaid-error">
          <div className="inline-alert artifact-alert" role="alert">
            <strong>This diagram does not parse.</strong> Mermaid says:
            <pre className="artifact-parse-error" data-testid="artifact-mermaid-message">
              {error}
            </pre>
          </div>
          <pre className="artifact-code" data-testid="artifact-mermaid-source">
            {source}
          </pre>
        </div>
      )}
      {doc && <SandboxFrame doc={doc} title={title} onError={setError} hidden={error !== null} />}
    </div>
  );
}
