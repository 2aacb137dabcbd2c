import { useState } from "react";
import { errorText, request } from "../api";
import { Link, threadPath } from "../lib/router";
import type { Task } from "@protocol";

export const ACTIVE_TASK: ReadonlySet<string> = new Set(["pending", "running", "evaluating"]);

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

export function CancelTask({ task, onCancelled }: { task: Task; onCancelled?: (task: Task) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!ACTIVE_TASK.has(task.status)) return null;
  return (
    <>
      <button
        type="button"
        className="button small danger ghost"
        data-testid="task-cancel"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            onCancelled?.((await request("POST /api/tasks/:id/cancel", { params: { id: task.id } })).task);
          } catch (err) {
            setError(errorText(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy ? "Cancelling…" : "Cancel"}
      </button>
      {error && <span className="error-text small" role="alert">{error}</span>}
    </>
  );
}

/** Tasks this thread delegated (or, in a task thread, its own task), live from task:* events. */
export function TaskStrip({
  threadId,
  tasks,
  onTask,
}: {
  threadId: string;
  tasks: Task[];
  onTask: (task: Task) => void;
}) {
  const own = tasks.find((t) => t.threadId === threadId);
  const delegated = tasks
    .filter((t) => t.parentThreadId === threadId && t.threadId !== threadId)
    .sort((a, b) => b.createdAt - a.createdAt)
    .slice(0, 5);
  if (!own && delegated.length === 0) return null;
  return (
    <section className="task-strip" aria-label="Tasks">
      {own && (
        <div className="task-strip-row is-own">
          <span className="muted small">This task</span>
          <TaskStatus task={own} />
          <Iterations task={own} />
          {own.parentThreadId && (
            <Link href={threadPath(own.parentThreadId)} className="small">
              ← parent thread
            </Link>
          )}
          <CancelTask task={own} onCancelled={onTask} />
        </div>
      )}
      {delegated.map((t) => (
        <div key={t.id} className="task-strip-row">
          <span className="muted small">Delegated</span>
          <TaskStatus task={t} />
          <Iterations task={t} />
          <Link href={threadPath(t.threadId)} className="task-prompt small" title={t.prompt}>
            {t.prompt || t.id}
          </Link>
          <CancelTask task={t} onCancelled={onTask} />
        </div>
      ))}
    </section>
  );
}
