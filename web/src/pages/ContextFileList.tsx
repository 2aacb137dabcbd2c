import type { ContextFileInfo } from "@protocol";
import { formatBytes, formatRelative } from "../lib/format";

/** One group of context files on the Context page: a heading, what the group is, its files. */
export function ContextFileList({
  title,
  testId,
  explanation,
  files,
  cut,
  selected,
  empty,
  onChoose,
}: {
  title: string;
  testId: string;
  explanation: React.ReactNode;
  files: readonly ContextFileInfo[];
  cut?: ReadonlySet<string>;
  selected: string | null;
  /** Shown when the group has no files; the group is left out when this is absent. */
  empty?: string;
  onChoose: (path: string) => void;
}) {
  if (files.length === 0 && !empty) return null;
  const headingId = `${testId}-title`;
  return (
    <section className="file-group" data-testid={testId} aria-labelledby={headingId}>
      <h2 id={headingId} className="file-group-title">
        {title}
      </h2>
      <p className="muted small file-group-note">{explanation}</p>
      {files.length === 0 ? (
        <p className="muted small">{empty}</p>
      ) : (
        <ul className="file-list">
          {files.map((f) => (
            <li key={f.path}>
              <button
                type="button"
                className={"file-row" + (f.path === selected ? " is-active" : "")}
                data-testid="context-file"
                data-path={f.path}
                aria-current={f.path === selected ? "true" : undefined}
                onClick={() => onChoose(f.path)}
              >
                <span className="file-path">{f.path}</span>
                <span className="muted small">
                  {formatBytes(f.bytes)} · {formatRelative(f.updatedAt)}
                </span>
                {cut?.has(f.path) && (
                  <span className="pill pill-warn" data-testid="context-cut" title="Left out of prompts: the context files are more than the model's window holds">
                    cut to fit
                  </span>
                )}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
