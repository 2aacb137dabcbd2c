import type { CodeRunView, ProducedFile } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { memo, useLayoutEffect, useMemo, useRef, useState } from "react";
import { errorText } from "../api";
import { saveBlob } from "../fileTransfer";
import { useObjectUrl } from "../hooks/useObjectUrl";
import { useThrottled } from "../hooks/useThrottled";
import { codeErrorText, codeRunState, codeStatusText, codeView, foldText, isInlineImage, PREVIEW_MAX_BYTES, previewKind } from "../lib/codeView";
import { formatBytes } from "../lib/format";
import type { ContainerNotice } from "../lib/liveRun";
import { highlight } from "../lib/markdown";
import { useProducedFile, type FilePreview } from "../queries/producedFiles";
import { FileBadge } from "./FileBadge";
import { Lightbox } from "./Lightbox";
import { Collapsible } from "./ToolCards";

/**
 * The code, highlighted. While it is written it shows whole, kept scrolled to its end; once whole it
 * folds as a tool card's input does (its start, and "Show all").
 */
function CodeBlock({ text, language, live }: { text: string; language: string; live: boolean }) {
  const [open, setOpen] = useState(false);
  // Highlighted at most every 120 ms while it streams, as the answer's markdown is.
  const shown = useThrottled(text, live ? 120 : 0);
  const source = live ? shown : text;
  const { shown: start, folded } = live || open ? { shown: source, folded: false } : foldText(source);
  // highlight.js escapes what it does not mark up: its HTML holds only its own spans.
  const html = useMemo(() => highlight(start, language), [start, language]);
  const pre = useRef<HTMLPreElement>(null);
  useLayoutEffect(() => {
    if (live && pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [live, html]);
  return (
    <>
      <pre ref={pre} className={"code-card-code" + (live ? " is-live" : "")} aria-label="Code" data-testid="code-card-code">
        <code className={"hljs" + (language ? ` language-${language}` : "")} dangerouslySetInnerHTML={{ __html: folded ? html + "\n…" : html }} />
      </pre>
      {(folded || open) && (
        <button type="button" className="link-button small" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
          {open ? "Show less" : `Show all (${text.length.toLocaleString()} chars)`}
        </button>
      )}
    </>
  );
}

/** Downloads a produced file under its name (fetched with the app's credentials, as attachments are). */
function DownloadButton({ file }: { file: ProducedFile }) {
  const { bytes, queryClient } = useProducedFile(file);
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const download = () => {
    setState({ busy: true, error: null });
    queryClient.fetchQuery(bytes).then(
      (blob) => {
        saveBlob(blob, file.name);
        setState({ busy: false, error: null });
      },
      (err: unknown) => setState({ busy: false, error: errorText(err) }),
    );
  };
  return (
    <>
      <button type="button" className="button small code-card-download" data-testid="code-card-download" aria-label={`Download ${file.name}`} disabled={state.busy} onClick={download}>
        {state.busy ? "Downloading…" : "Download"}
      </button>
      {state.error && (
        <span className="error-text small" role="alert">
          {state.error}
        </span>
      )}
    </>
  );
}

/** An image the code made, in place; a click shows it full size. */
function ProducedImage({ file }: { file: ProducedFile }) {
  const { data, isError } = useQuery(useProducedFile(file).bytes);
  const url = useObjectUrl(data);
  const [open, setOpen] = useState(false);
  return (
    <figure className="code-card-figure" data-file-id={file.id}>
      <button type="button" className="code-card-thumb" aria-label={`Open ${file.name} full size`} title={file.name} disabled={!url} onClick={() => setOpen(true)}>
        {url ? <img className="code-card-image" src={url} alt={file.name} /> : <span className="muted small">{isError ? "Not available" : "Loading…"}</span>}
      </button>
      <figcaption className="code-card-caption">
        <span className="code-card-file-name">{file.name}</span>
        <span className="muted small">{formatBytes(file.bytes)}</span>
        <DownloadButton file={file} />
      </figcaption>
      {open && <Lightbox src={url} name={file.name} onClose={() => setOpen(false)} />}
    </figure>
  );
}

function PreviewBody({ preview }: { preview: FilePreview }) {
  if (preview.kind === "text") {
    return (
      <pre className="code-card-preview-text">
        {preview.text}
        {preview.more && "\n…"}
      </pre>
    );
  }
  const [head, ...rows] = preview.table.rows;
  if (!head) return <p className="muted small">Empty</p>;
  return (
    <>
      <div className="code-card-table-scroll">
        <table className="code-card-table">
          <thead>
            <tr>
              {head.map((h, i) => (
                <th key={i} scope="col">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i}>
                {r.map((c, j) => (
                  <td key={j}>{c}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {preview.table.more && <p className="muted small code-card-more">More rows in the file</p>}
    </>
  );
}

/** The start of a text or CSV file, fetched once its card shows (not for a file over PREVIEW_MAX_BYTES). */
function Preview({ file }: { file: ProducedFile }) {
  const { data, error, isPending } = useQuery(useProducedFile(file).preview);
  return (
    <div className="code-card-preview" data-testid="code-card-preview" role="group" aria-label={`Start of ${file.name}`}>
      {data ? <PreviewBody preview={data} /> : error ? <p className="error-text small">No preview: {errorText(error)}</p> : isPending ? <p className="muted small">Loading preview…</p> : null}
    </div>
  );
}

/** A file the code made: its name, type and size, a download, and the start of it when it is text. */
function ProducedFileCard({ file }: { file: ProducedFile }) {
  const previewable = previewKind(file) !== null && file.bytes <= PREVIEW_MAX_BYTES;
  return (
    <li className="code-card-file" data-testid="code-card-file" data-file-id={file.id}>
      <div className="code-card-file-head">
        <FileBadge mediaType={file.mediaType} />
        <span className="code-card-file-name">{file.name}</span>
        <span className="code-card-file-meta muted small">
          {file.mediaType} · {formatBytes(file.bytes)}
        </span>
        <DownloadButton file={file} />
      </div>
      {previewable && <Preview file={file} />}
    </li>
  );
}

/** The files the run made (images in place, the others as download cards), and those it could not keep. */
function CodeFiles({ run }: { run: CodeRunView }) {
  const images = run.files.filter((f) => isInlineImage(f.mediaType));
  const others = run.files.filter((f) => !images.includes(f));
  return (
    <>
      {images.length > 0 && (
        <div className="code-card-images">
          {images.map((f) => (
            <ProducedImage key={f.id} file={f} />
          ))}
        </div>
      )}
      {others.length > 0 && (
        <ul className="code-card-files" aria-label="Files the code wrote">
          {others.map((f) => (
            <ProducedFileCard key={f.id} file={f} />
          ))}
        </ul>
      )}
      {run.skipped && run.skipped.length > 0 && (
        <div className="code-card-skipped" data-testid="code-card-skipped">
          <span className="muted small">Files not kept:</span>
          <ul>
            {run.skipped.map((s, i) => (
              <li key={`${s.name}#${i}`}>
                <span className="code-card-file-name">{s.name}</span> <span className="muted">— {s.reason}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}

const ICON = { writing: "›_", running: "›_", done: "›_", failed: "!", stopped: "■" } as const;

/**
 * One code run: its code (growing as the model writes it), then its output, exit code and duration,
 * its error, and the files it made. `active`: the answer's run is still going (a run without output
 * then runs; after, it was stopped).
 */
export const CodeCard = memo(function CodeCard({ run, active }: { run: CodeRunView; active: boolean }) {
  const state = codeRunState(run, active);
  const view = useMemo(() => codeView(run.toolName, run.input, run.partial), [run.toolName, run.input, run.partial]);
  const busy = state === "writing" || state === "running";
  return (
    <div
      className={`tool-card code-card is-${state}`}
      data-testid="code-card"
      data-state={state}
      data-tool={run.toolName}
      data-tool-use-id={run.toolUseId}
      aria-busy={busy || undefined}
    >
      <div className="tool-head code-card-head">
        <span className={"tool-icon code-card-icon" + (busy ? " pulse" : "")} aria-hidden="true">
          {ICON[state]}
        </span>
        <span className="tool-title code-card-title">
          {view.label} {view.title && <strong>{view.title}</strong>}
        </span>
        <span className={"code-card-status" + (state === "failed" ? " is-error" : "")} data-testid="code-card-status">
          {codeStatusText(run, state)}
        </span>
      </div>
      {view.text && <CodeBlock text={view.text} language={view.language} live={state === "writing"} />}
      {run.stdout && <Collapsible text={run.stdout} label="Output" className="code-card-stdout" />}
      {run.stderr && <Collapsible text={run.stderr} label="Errors" className="code-card-stderr" />}
      {run.error && (
        <p className="code-card-error" role="note">
          {codeErrorText(run.error)} <code>{run.error}</code>
        </p>
      )}
      <CodeFiles run={run} />
    </div>
  );
});

/** The answer's code runs, in the order they ran. */
export function CodeCards({ runs, active }: { runs: readonly CodeRunView[]; active: boolean }) {
  if (runs.length === 0) return null;
  return (
    <div className="code-cards">
      {runs.map((r) => (
        <CodeCard key={r.toolUseId} run={r} active={active} />
      ))}
    </div>
  );
}

/** Why the code's files and variables from before are not there (code:container). */
export function CodeContainerNotice({ notice }: { notice: ContainerNotice }) {
  return (
    <p className="code-container-notice" role="note" data-testid="code-container-notice" data-status={notice.status}>
      <span aria-hidden="true">↻</span>{" "}
      {notice.status === "expired"
        ? "The code's container had expired: a new one started, and its files were uploaded again."
        : "This branch runs its code in a new container: the other branch's files and variables are not here."}
    </p>
  );
}
