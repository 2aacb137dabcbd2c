import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { CancelTask, Iterations, TaskStatus } from "../components/TaskStrip";
import { formatRelative } from "../lib/format";
import { Link, threadPath } from "../lib/router";
import { tasksQuery } from "../queries/tasks";
import { FilterChips } from "./FilterChips";
import { ListShell } from "./ListShell";
import type { TaskStatus as Status } from "@protocol";
import { DataTable } from "./DataTable";

const POLL_MS = 5000;

const FILTERS: Array<{ value: Status | ""; label: string }> = [
  { value: "", label: "All" },
  { value: "running", label: "Running" },
  { value: "pending", label: "Pending" },
  { value: "evaluating", label: "Evaluating" },
  { value: "completed", label: "Completed" },
  { value: "failed", label: "Failed" },
  { value: "cancelled", label: "Cancelled" },
];

export default function TasksPage() {
  const [status, setStatus] = useState<Status | "">("");
  const tasks = useQuery({ ...tasksQuery(status ? { status } : {}, POLL_MS), placeholderData: keepPreviousData });
  const newestFirst = tasks.data && [...tasks.data].sort((a, b) => b.updatedAt - a.updatedAt);

  return (
    <div className="page">
      <header className="page-header">
        <h1>Tasks</h1>
        <p className="muted">Work delegated to task threads. Each iteration is evaluated until it is accepted or the limit is hit.</p>
      </header>
      <FilterChips label="Filter by status" options={FILTERS} value={status} onChange={setStatus} />
      <ListShell query={tasks} rows={newestFirst} empty={<p className="muted">No tasks.</p>}>
        {(rows) => (
          <DataTable columns={["Status", "Task", "Iterations", "Updated", { hidden: "Actions" }]}>
            {rows.map((t) => (
              <tr key={t.id} data-testid="task-row" data-task-id={t.id} data-status={t.status}>
                <td>
                  <TaskStatus task={t} />
                </td>
                <td className="task-cell">
                  <Link href={threadPath(t.threadId)} className="task-prompt" title={t.prompt}>
                    {t.prompt || t.id}
                  </Link>
                  {t.parentThreadId && (
                    <Link href={threadPath(t.parentThreadId)} className="muted small">
                      from parent thread
                    </Link>
                  )}
                  {t.result && <div className="muted small task-result">{t.result.slice(0, 200)}</div>}
                </td>
                <td>
                  <Iterations task={t} />
                </td>
                <td className="muted small">{formatRelative(t.updatedAt)}</td>
                <td>
                  <CancelTask task={t} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListShell>
    </div>
  );
}
