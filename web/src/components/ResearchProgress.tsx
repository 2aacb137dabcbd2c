import type { Research, Subquestion } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { formatCost } from "../lib/format";
import { researchActive, subquestionStatusText } from "../lib/research";
import { Link, threadPath } from "../lib/router";
import { tasksQuery } from "../queries/tasks";
import { ResearchSources } from "./ResearchSources";

/** The task threads of the thread's tasks, by task id (the list the task strip keeps live). */
function useTaskThreads(threadId: string): ReadonlyMap<string, string> {
  const tasks = useQuery(tasksQuery({ threadId })).data;
  return useMemo(() => new Map((tasks ?? []).map((t) => [t.id, t.threadId])), [tasks]);
}

/** One sub-question: its status, its cost, its task thread, what it found. */
function SubquestionRow({ sub, n, live, taskThread }: { sub: Subquestion; n: number; live: boolean; taskThread: string | undefined }) {
  // Sources show while the research goes on, and fold away once it ended, unless the reader chose.
  const [chosen, setChosen] = useState<boolean | null>(null);
  const open = chosen ?? live;
  const label = `sub-question ${n}`;
  return (
    <li className={`research-subquestion is-${sub.status}`} data-testid="research-subquestion" data-status={sub.status} data-task-id={sub.taskId ?? undefined}>
      <div className="research-subquestion-head">
        <span className={`status-pill is-${sub.status}`} data-testid="research-subquestion-status">
          {subquestionStatusText(sub.status)}
        </span>
        <span className="research-subquestion-text">{sub.text}</span>
        {sub.costUsd !== undefined && sub.costUsd > 0 && (
          <span className="research-subquestion-cost muted small" title="What its task cost so far">
            {formatCost(sub.costUsd)}
          </span>
        )}
        {taskThread && (
          <Link href={threadPath(taskThread)} className="small research-task-link" aria-label={`Open the task thread of ${label}`}>
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
  const taskThreads = useTaskThreads(research.threadId);
  const live = researchActive(research.status);
  return (
    <ol className="research-subquestions" aria-label="Sub-questions">
      {research.subquestions.map((sub, i) => (
        <SubquestionRow
          key={sub.taskId ?? `planned-${i}`}
          sub={sub}
          n={i + 1}
          live={live}
          taskThread={sub.taskId ? taskThreads.get(sub.taskId) : undefined}
        />
      ))}
    </ol>
  );
}
