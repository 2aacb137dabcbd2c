// What a failed run's line says first, by its code. The server's message follows it with the detail.
import { RUN_ERROR_CODES, type RunErrorCode } from "@protocol";

const HEADLINES: Record<RunErrorCode, string> = {
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

/**
 * A run a restart cut short before any tool ran: the server ends it so, and answers its message
 * again in the next run. Nothing for the reader to do.
 */
export const answeredAgain = (error: { code: string; retryable?: boolean } | undefined): boolean =>
  error?.code === "interrupted" && error.retryable === false;

export function runErrorHeadline(code: string, retryable?: boolean): string {
  // The provider's limits pass (retryable); the owner's daily spend cap is the one that does not.
  if (code === "rate_limited" && retryable === false) return "Your daily spend cap is reached.";
  return isRunErrorCode(code) ? HEADLINES[code] : "The run failed.";
}
