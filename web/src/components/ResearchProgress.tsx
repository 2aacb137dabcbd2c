import type { Research, Subquestion, Task } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { formatCost } from "../lib/format";
import { researchActive, subquestionStatus, subquestionStatusText } from "../lib/research";
import { Link, threadPath } from "../lib/router";
import { tasksQuery } from "../queries/tasks";
import { ResearchSources } from "./ResearchSources";

/** The thread's tasks by id, as its task:* frames keep them live (the list the task strip reads). */
function useTasks(threadId: string): ReadonlyMap<string, Task> {
  const tasks = useQuery(tasksQuery({ threadId })).data;
  return useMemo(() => new Map((tasks ?? []).map((t) => [t.id, t])), [tasks]);
}

/** One sub-question: its status, its cost, its task thread, what it found. */
function SubquestionRow({ sub, n, live, task }: { sub: Subquestion; n: number; live: boolean; task: Task | undefined }) {
  // Sources show while the research goes on, and fold away once it ended, unless the reader chose.
  const [chosen, setChosen] = useState<boolean | null>(null);
  const open = chosen ?? live;
  const label = `sub-question ${n}`;
  const status = subquestionStatus(sub, task);
  return (
    <li className={`research-subquestion is-${status}`} data-testid="research-subquestion" data-status={status} data-task-id={sub.taskId ?? undefined}>
      <div className="research-subquestion-head">
        <span className={`status-pill is-${status}`} data-testid="research-subquestion-status">
          {subquestionStatusText(status)}
        </span>
        <span className="research-subquestion-text">{sub.text}</span>
        {sub.costUsd !== undefined && sub.costUsd > 0 && (
          <span className="research-subquestion-cost muted small" title="What its task cost so far">
            {formatCost(sub.costUsd)}
          </span>
        )}
        {task && (
          <Link href={threadPath(task.threadId)} className="small research-task-link" aria-label={`Open the task thread of ${label}`}>
            Task thread →
          </Link>
        )}
      </div>
      <ResearchSources sources={sub.sources} open={open} onToggle={() => setChosen(!open)} label={label} />
    </li>
  );
}

/** The sub-questions as their tasks research them, each with its status, cost and sources so far. */
export function ResearchProgress({ research }: { research: Research }) {
  const tasks = useTasks(research.threadId);
  const live = researchActive(research.status);
  return (
    <ol className="research-subquestions" aria-label="Sub-questions">
      {research.subquestions.map((sub, i) => (
        <SubquestionRow
          key={sub.taskId ?? `planned-${i}`}
          sub={sub}
          n={i + 1}
          live={live}
          task={sub.taskId ? tasks.get(sub.taskId) : undefined}
        />
      ))}
    </ol>
  );
}
