// A run that failed, as the error a program gets (in its protocol's shape: errors.ts). A run stopped in
// the app is no error: its answer is what it had said. A run still going at the deadline is none
// either: its answer says where it goes on (run-answer.ts).
import type { ApiErrorCode, RunErrorCode } from "../../../protocol";
import { ApiError } from "../errors";
import type { RunOutcome } from "./run-answer";

const STATUS_OF: Record<Exclude<RunErrorCode, "aborted">, ApiErrorCode> = {
  timeout: "unavailable",
  rate_limited: "rate_limited",
  overloaded: "unavailable",
  upstream_error: "upstream_error",
  invalid_request: "invalid_request",
  interrupted: "unavailable",
  internal: "internal",
};

export function runError(outcome: RunOutcome, said: string): ApiError | null {
  if (outcome.status !== "failed" || outcome.code === "aborted") return null;
  const extra = said ? { partial: true } : {};
  return new ApiError(STATUS_OF[outcome.code], `The run failed (${outcome.code}): ${outcome.message}`, extra, outcome.code === "rate_limited" || outcome.code === "overloaded" ? { "Retry-After": "5" } : {});
}
