import { useMemo } from "react";
import { diffStats, foldUnchanged, lineDiff, type DiffRow } from "../lib/lineDiff";

const SIGN = { same: " ", del: "−", add: "+" } as const;

/** The changes from one version's text to another's, line by line, long unchanged stretches folded. */
export function ArtifactDiff({ before, after, from, to }: { before: string; after: string; from: number; to: number }) {
  const { rows, stats } = useMemo(() => {
    const lines = lineDiff(before, after);
    return { rows: foldUnchanged(lines), stats: diffStats(lines) };
  }, [before, after]);
  return (
    <div className="artifact-scroll artifact-diff" data-testid="artifact-diff" data-from={from} data-to={to}>
      <p className="artifact-diff-head muted small" data-testid="artifact-diff-summary">
        Version {from} → version {to}: <span className="diff-added">+{stats.added}</span>{" "}
        <span className="diff-removed">−{stats.removed}</span>
        {stats.added + stats.removed === 0 && " (no changes)"}
      </p>
      <pre className="artifact-code diff-lines">
        {rows.map((row, i) => (
          <DiffRowLine key={i} row={row} />
        ))}
      </pre>
    </div>
  );
}

function DiffRowLine({ row }: { row: DiffRow }) {
  if (row.kind === "skip") {
    return (
      <span className="diff-line diff-skip" data-kind="skip">
        ⋯ {row.count} unchanged {row.count === 1 ? "line" : "lines"}
        {"\n"}
      </span>
    );
  }
  const number = row.kind === "add" ? row.after : row.before;
  return (
    <span className={`diff-line diff-${row.kind}`} data-kind={row.kind}>
      <span className="diff-number" aria-hidden="true">
        {number}
      </span>
      <span className="diff-sign" aria-label={row.kind === "add" ? "added" : row.kind === "del" ? "removed" : undefined}>
        {SIGN[row.kind]}
      </span>
      {row.text}
      {"\n"}
    </span>
  );
}
