import type { Task } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { errorText } from "../api";
import { Link, threadPath } from "../lib/router";
import { useResearchTaskIds } from "../queries/research";
import { ACTIVE_TASK, tasksQuery, useCancelTask } from "../queries/tasks";

export function TaskStatus({ task }: { task: Task }) {
  return (
    <span className={`status-pill is-${task.status}`} data-status={task.status}>
      {task.status}
    </span>
  );
}

export function Iterations({ task }: { task: Task }) {
  return (
    <span className="iterations" title="Iterations">
      {task.currentIteration}/{task.maxIterations}
    </span>
  );
}

export function CancelTask({ task }: { task: Task }) {
  const cancel = useCancelTask();
  if (!ACTIVE_TASK.has(task.status)) return null;
  return (
    <>
      <button
        type="button"
        className="button small danger ghost"
        data-testid="task-cancel"
        disabled={cancel.isPending}
        onClick={() => cancel.mutate(task.id)}
      >
        {cancel.isPending ? "Cancelling…" : "Cancel"}
      </button>
      {cancel.error && <span className="error-text small" role="alert">{errorText(cancel.error)}</span>}
    </>
  );
}

/** The latest verdict on the task's result: accepted or rejected, by whom, and why. */
export function TaskVerdictLine({ task }: { task: Task }) {
  const verdict = task.verdict;
  if (!verdict) return null;
  const { accepted, by, feedback, iteration } = verdict;
  return (
    <div
      className={"task-verdict " + (accepted ? "is-accepted" : "is-rejected")}
      data-testid="task-verdict"
      data-accepted={String(accepted)}
      role="status"
    >
      <span className="task-verdict-mark" aria-hidden="true">{accepted ? "✓" : "✕"}</span>
      <span className="task-verdict-head">
        <strong>{accepted ? "Accepted" : "Rejected"}</strong>
        {by && <> by {by}</>}
        <span className="muted"> · iteration {iteration}</span>
      </span>
      {!accepted && feedback && (
        <span className="task-verdict-feedback" title={feedback}>
          {feedback}
        </span>
      )}
    </div>
  );
}

/**
 * Tasks this thread delegated (or, in a task thread, its own task), kept live by task:* events; a
 * research's tasks are on its card instead.
 */
export function TaskStrip({ threadId }: { threadId: string }) {
  const tasks = useQuery(tasksQuery({ threadId })).data ?? [];
  const researching = useResearchTaskIds(threadId);
  const own = tasks.find((t) => t.threadId === threadId);
  const delegated = tasks
    .filter((t) => t.parentThreadId === threadId && t.threadId !== threadId && !researching.has(t.id))
    .sort((a, b) => b.createdAt - a.createdAt)
    .slice(0, 5);
  if (!own && delegated.length === 0) return null;
  return (
    <section className="task-strip" aria-label="Tasks">
      {own && (
        <div className="task-strip-row is-own" data-testid="task-card" data-task-id={own.id}>
          <span className="muted small">This task</span>
          <TaskStatus task={own} />
          <Iterations task={own} />
          {own.parentThreadId && (
            <Link href={threadPath(own.parentThreadId)} className="small">
              ← parent thread
            </Link>
          )}
          <CancelTask task={own} />
          <TaskVerdictLine task={own} />
        </div>
      )}
      {delegated.map((t) => (
        <div key={t.id} className="task-strip-row" data-testid="task-card" data-task-id={t.id}>
          <span className="muted small">Delegated</span>
          <TaskStatus task={t} />
          <Iterations task={t} />
          <Link href={threadPath(t.threadId)} className="task-prompt small" title={t.prompt}>
            {t.prompt || t.id}
          </Link>
          <CancelTask task={t} />
          <TaskVerdictLine task={t} />
        </div>
      ))}
    </section>
  );
}
