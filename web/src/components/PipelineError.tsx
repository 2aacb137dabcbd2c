import { memo } from "react";
import { answeredAgain, runErrorHeadline } from "../lib/runErrors";

/** A failed (or stopped) run, in place, with a retry that sends the same message again. */
export const PipelineError = memo(function PipelineError({
  code,
  message,
  retryable,
  onRetry,
}: {
  code: string;
  message?: string;
  retryable?: boolean;
  onRetry?: () => void;
}) {
  const stopped = code === "aborted";
  if (answeredAgain({ code, retryable })) {
    return (
      <div className="pipeline-error is-stopped is-restarted" data-testid="pipeline-error" data-code={code} data-restarted="true">
        <span className="pipeline-error-icon" aria-hidden="true">↻</span>
        <div className="pipeline-error-text">
          <strong>Interrupted by a restart</strong>
          <span className="muted"> — answering again below.</span>
        </div>
      </div>
    );
  }
  return (
    <div className={"pipeline-error" + (stopped ? " is-stopped" : "")} data-testid="pipeline-error" data-code={code} role={stopped ? undefined : "alert"}>
      <span className="pipeline-error-icon" aria-hidden="true">{stopped ? "■" : "!"}</span>
      <div className="pipeline-error-text">
        <strong>{runErrorHeadline(code, retryable)}</strong>
        {message && !stopped && <span className="muted"> {message}</span>}
        {!stopped && <span className="muted small"> ({code}{retryable === false ? ", not retryable" : ""})</span>}
      </div>
      {onRetry && (
        <button type="button" className="button small" data-testid="retry" onClick={onRetry}>
          {stopped ? "Send again" : "Retry"}
        </button>
      )}
    </div>
  );
});
