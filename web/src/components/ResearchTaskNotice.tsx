import { Link, threadPath } from "../lib/router";

/**
 * The news of a research's task, which the research's card already shows (its status, its sources)
 * and its report will use: one line, with the way to its thread, rather than the task's whole result.
 */
export function ResearchTaskNotice({ status, n, taskThreadId }: { status: string; n: number; taskThreadId: string | null }) {
  return (
    <div className={`notice-card notice-line is-${status}`} data-testid="cross-thread-notification" data-research-task="true">
      <div className="notice-head">
        <span className="notice-icon" aria-hidden="true">⇄</span>
        <span className="notice-line-text">
          <strong>Task {status}</strong> <span className="muted">for sub-question {n} of the research</span>
        </span>
        {taskThreadId && (
          <Link href={threadPath(taskThreadId)} className="notice-link" data-testid="notification-link" aria-label={`Open the task thread of sub-question ${n}`}>
            Task thread →
          </Link>
        )}
      </div>
    </div>
  );
}
