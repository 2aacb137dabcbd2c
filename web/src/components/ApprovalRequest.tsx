import type { PendingApproval } from "@protocol";
import { useId } from "react";
import { errorText } from "../api";
import { useNow } from "../hooks/useNow";
import { approvalPhase, describeExpiry, type ApprovalPhase } from "../lib/approvals";
import { prettyJson } from "../lib/format";
import { useDecideApproval } from "../queries/approvals";
import { ToolHead } from "./ToolHead";

function statusText(phase: ApprovalPhase): string {
  switch (phase.name) {
    case "decided":
      return phase.approve ? "Approved: the tool runs." : "Denied: the model is told so.";
    case "gone":
      return "Already decided (in another tab, or it timed out).";
    case "posting":
      return "Sending your decision…";
    default:
      return "Waiting for your approval";
  }
}

/**
 * A tool call waiting for the user, as it stands (`phase`): the call's full name (`<server>__<tool>`)
 * and its whole input, when it is declined by itself, and Approve / Deny until a decision is made.
 */
export function ApprovalView({
  approval,
  phase,
  now,
  onDecide,
}: {
  approval: PendingApproval;
  phase: ApprovalPhase;
  now: number;
  onDecide: (approve: boolean) => void;
}) {
  const id = useId();
  const open = phase.name === "waiting" || phase.name === "posting" || phase.name === "failed";
  const posting = phase.name === "posting";
  return (
    <div
      className={`approval is-${phase.name}`}
      role="group"
      aria-labelledby={`${id}-status ${id}-tool`}
      data-testid="approval"
      data-tool-use-id={approval.toolUseId}
      data-phase={phase.name}
    >
      <p className="approval-status" id={`${id}-status`} role="status" data-testid="approval-status">
        {statusText(phase)}
      </p>
      <p className="small approval-meta">
        <code id={`${id}-tool`} data-testid="approval-tool">
          {approval.toolName}
        </code>
        {open && (
          <span className="muted" data-testid="approval-expiry">
            {" "}
            · {describeExpiry(approval.expiresAt, now)}
          </span>
        )}
      </p>
      {/* All of it, however long: one approves what one has read. Focusable, to scroll it by keyboard. */}
      <pre className="approval-input" tabIndex={0} data-testid="approval-input">
        {prettyJson(approval.input ?? {})}
      </pre>
      {phase.name === "failed" && (
        <p className="error-text small" role="alert" data-testid="approval-error">
          Could not send your decision: {errorText(phase.error)}
        </p>
      )}
      {open && (
        <div className="row-actions">
          <button type="button" className="button small primary" data-testid="approval-approve" disabled={posting} onClick={() => onDecide(true)}>
            {posting && phase.approve ? "Approving…" : "Approve"}
            <span className="visually-hidden"> {approval.toolName}</span>
          </button>
          <button type="button" className="button small danger" data-testid="approval-deny" disabled={posting} onClick={() => onDecide(false)}>
            {posting && !phase.approve ? "Denying…" : "Deny"}
            <span className="visually-hidden"> {approval.toolName}</span>
          </button>
        </div>
      )}
    </div>
  );
}

/** A waiting call with its decision: POST .../approvals/:toolUseId; the buttons go once it is made. */
export function ApprovalRequest({ threadId, approval }: { threadId: string; approval: PendingApproval }) {
  const decide = useDecideApproval(threadId);
  // Minutes are what is shown; a tick every 15 s keeps them close enough.
  const now = useNow(15_000);
  return <ApprovalView approval={approval} phase={approvalPhase(decide)} now={now} onDecide={(approve) => decide.mutate({ approval, approve })} />;
}

/** A waiting call whose tool card is not shown (a reload whose run's stream was not replayed): a card of its own. */
export function ApprovalCard({ threadId, approval }: { threadId: string; approval: PendingApproval }) {
  return (
    <div className="tool-card tool-call is-waiting" data-testid="approval-card" data-tool-use-id={approval.toolUseId}>
      <ToolHead toolName={approval.toolName} />
      <ApprovalRequest threadId={threadId} approval={approval} />
    </div>
  );
}
