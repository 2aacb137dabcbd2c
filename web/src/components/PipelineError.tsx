import { RUN_ERROR_CODES, type RunErrorCode } from "@protocol";
import { memo } from "react";

const TEXT: Record<RunErrorCode, string> = {
  aborted: "Stopped.",
  timeout: "The model took too long to answer.",
  rate_limited: "Rate limited by the model provider.",
  overloaded: "The model is overloaded right now.",
  upstream_error: "The model's stream failed.",
  invalid_request: "The model API refused the request.",
  interrupted: "The run was interrupted (the thread restarted).",
  internal: "Something went wrong in the pipeline.",
};

/** A stored run's code is a string as written then; a live one is the protocol's. */
const isRunErrorCode = (code: string): code is RunErrorCode => (RUN_ERROR_CODES as readonly string[]).includes(code);

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
  if (code === "interrupted" && retryable === false) {
    // Not a failure the reader has to act on: the server answers the same message again.
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
        <strong>{isRunErrorCode(code) ? TEXT[code] : "The run failed."}</strong>
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
