import type { ToolOutcome } from "@protocol";
import { memo, useState } from "react";
import { describeMemoryCall } from "../lib/memoryActivity";


/**
 * A memory tool call and its outcome in one readable line ("Saved a note: /memories/prefs.md"),
 * with what was written or read a click away and an error in plain view.
 */
export const MemoryLine = memo(function MemoryLine({
  input,
  toolUseId,
  result,
  running,
}: {
  input: unknown;
  toolUseId?: string;
  /** The tool's answer; null when not (yet) known. */
  result: ToolOutcome | null;
  /** The run is still going, so a missing result is still to come. */
  running: boolean;
}) {
  const [open, setOpen] = useState(false);
  const { action, failed, path, detail } = describeMemoryCall(input);
  const state = result?.isError ? "failed" : !result && running ? "running" : "done";
  const reading = action.startsWith("Read");
  const body = result?.isError ? null : reading ? (result?.content ?? null) : detail;
  return (
    <div className={`tool-card memory-line is-${state}`} data-testid="memory-activity" data-state={state} data-tool-use-id={toolUseId}>
      <div className="memory-head">
        <span className={"memory-icon" + (state === "running" ? " pulse" : "")} aria-hidden="true">
          {reading ? "☰" : "✎"}
        </span>
        <span className="memory-summary">
          {state === "failed" ? failed : action}
          {path && (
            <>
              : <code className="memory-path">{path}</code>
            </>
          )}
          {state === "running" && "…"}
        </span>
        {body && (
          <button type="button" className="link-button small" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
            {open ? "Hide" : reading ? "Show what it read" : "Show the note"}
          </button>
        )}
      </div>
      {result?.isError && <div className="memory-error small">{result.content}</div>}
      {open && body && <pre className="tool-body memory-body">{body}</pre>}
    </div>
  );
});
