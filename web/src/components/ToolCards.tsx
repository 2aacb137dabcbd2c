import { memo, useState } from "react";
import { prettyJson, splitToolName } from "../lib/format";
import { ApprovalRequest } from "./ApprovalRequest";
import { ToolHead } from "./ToolHead";
import { useApprovals } from "./approvalsState";

const PREVIEW_CHARS = 600;

/** A tool card's text: its start, with "Show all" when it is long (a code card's output folds the same way). */
export function Collapsible({ text, label, className }: { text: string; label: string; className?: string }) {
  const [open, setOpen] = useState(false);
  const long = text.length > PREVIEW_CHARS;
  return (
    <>
      <pre className={"tool-body" + (className ? " " + className : "")} aria-label={label}>
        {long && !open ? text.slice(0, PREVIEW_CHARS) + "…" : text}
      </pre>
      {long && (
        <button type="button" className="link-button small" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
          {open ? "Show less" : `Show all (${text.length.toLocaleString()} chars)`}
        </button>
      )}
    </>
  );
}

export const ToolCallCard = memo(function ToolCallCard({
  toolName,
  toolUseId,
  input,
}: {
  toolName: string;
  toolUseId?: string;
  input: unknown;
}) {
  const { tool } = splitToolName(toolName || "tool");
  // A call waiting for the user's approval shows the request in place of its (cut) input.
  const approvals = useApprovals();
  const waiting = toolUseId ? approvals?.pending.get(toolUseId) : undefined;
  return (
    <div className={"tool-card tool-call" + (waiting ? " is-waiting" : "")} data-testid="tool-call" data-tool-use-id={toolUseId}>
      <ToolHead toolName={toolName} />
      {waiting && approvals ? (
        <ApprovalRequest threadId={approvals.threadId} approval={waiting} />
      ) : (
        <Collapsible text={prettyJson(input ?? {})} label={`Input of ${tool}`} />
      )}
    </div>
  );
});

export const ToolResultCard = memo(function ToolResultCard({
  content,
  isError,
  toolUseId,
  toolName,
}: {
  content: string;
  isError: boolean;
  toolUseId?: string;
  toolName?: string;
}) {
  return (
    <div
      className={"tool-card tool-result" + (isError ? " is-error" : "")}
      data-testid="tool-result"
      data-tool-use-id={toolUseId}
      data-error={isError ? "true" : undefined}
    >
      <div className="tool-head">
        <span className="tool-icon" aria-hidden="true">{isError ? "✕" : "↩"}</span>
        <span className="tool-title">
          {isError ? "Tool error" : "Tool result"}
          {toolName ? <> · <strong>{splitToolName(toolName).tool}</strong></> : null}
        </span>
      </div>
      <Collapsible text={content} label="Tool result" />
    </div>
  );
});
