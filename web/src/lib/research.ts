// A research's card, as logic (PROTOCOL.md, "Research"): which of two copies of a research is the
// newer, what its status line says, how long it has run, and a reviewed plan checked as the server
// checks it before it is sent.

import {
  MAX_SUBQUESTION_CHARS,
  RESEARCH_MAX_TASKS,
  RESEARCH_MIN_TASKS,
  type Research,
  type ResearchStatus,
  type Subquestion,
  type SubquestionStatus,
  type Task,
} from "@protocol";

const STATUS_RANK: Record<ResearchStatus, number> = { planning: 0, review: 1, running: 2, writing: 3, done: 4, stopped: 4, failed: 4 };

/** Still going: the card ticks, and Stop can end it. */
export const researchActive = (status: ResearchStatus): boolean => STATUS_RANK[status] < 4;

const SETTLED: ReadonlySet<SubquestionStatus> = new Set(["completed", "failed", "cancelled"]);
const settled = (s: Subquestion) => SETTLED.has(s.status);
const started = (s: Subquestion) => s.status !== "planned" && s.status !== "pending";
const sourceCount = (r: Research) => r.subquestions.reduce((n, s) => n + s.sources.length, 0);

/** What only grows as a research goes on: a copy behind another in all of it is an older copy. */
function progress(r: Research): number[] {
  return [
    STATUS_RANK[r.status],
    r.endedAt === null ? 0 : 1,
    r.costUsd,
    sourceCount(r),
    r.subquestions.filter(settled).length,
    r.subquestions.filter(started).length,
  ];
}

/**
 * The copy to show, of the one shown (`known`) and one that arrives. Frames come in order, but a GET
 * answered before the latest frame arrives after it: a copy behind the known one in every measure
 * of progress (and ahead in none) is that stale read, and the known one stays.
 */
export function laterResearch(known: Research | undefined, incoming: Research): Research {
  if (!known || known.id !== incoming.id) return incoming;
  const [a, b] = [progress(known), progress(incoming)];
  const behind = b.some((v, i) => v < a[i]) && b.every((v, i) => v <= a[i]);
  return behind ? known : incoming;
}

/** How long it has run: to its end, or to `now` while it goes on. */
export function researchElapsedMs(r: Pick<Research, "startedAt" | "endedAt">, now: number): number {
  return Math.max(0, (r.endedAt ?? now) - r.startedAt);
}

/** A stopwatch's reading: 0:07, 4:32, 1:02:09. */
export function formatElapsed(ms: number): string {
  const total = Math.floor(Math.max(0, ms) / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const pad = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** The card's status line (what its live region says: nothing in it ticks). */
export function researchStatusText(r: Research): string {
  const count = r.subquestions.length;
  switch (r.status) {
    case "planning":
      return "Planning the research…";
    case "review":
      return `Review the plan: ${count} ${count === 1 ? "sub-question" : "sub-questions"}. Edit them, then start the research.`;
    case "running":
      return `Researching: ${r.subquestions.filter(settled).length} of ${count} ${count === 1 ? "sub-question" : "sub-questions"} done`;
    case "writing":
      return "Writing the report…";
    case "done":
      return "The report is ready";
    case "stopped":
      return "Stopped";
    case "failed":
      return "The research failed";
  }
}

const SUBQUESTION_LABEL: Record<SubquestionStatus, string> = {
  planned: "Planned",
  pending: "Waiting",
  running: "Researching",
  evaluating: "Checking",
  completed: "Done",
  failed: "Failed",
  cancelled: "Stopped",
};

export const subquestionStatusText = (status: SubquestionStatus): string => SUBQUESTION_LABEL[status] ?? status;

const TASK_RANK: Record<SubquestionStatus, number> = { planned: 0, pending: 0, running: 1, evaluating: 2, completed: 3, failed: 3, cancelled: 3 };

/**
 * What a sub-question's status shows: its task's (PROTOCOL.md: "a sub-question's status is its
 * task's"), from whichever copy is further along, the research's or the task's own, which the
 * thread's task:* frames keep live (the research hears of some of a task's moves only at its next
 * look at the tasks). A status the research settled is final.
 */
export function subquestionStatus(sub: Subquestion, task: Pick<Task, "status"> | undefined): SubquestionStatus {
  if (!task || SETTLED.has(sub.status)) return sub.status;
  return TASK_RANK[task.status] > TASK_RANK[sub.status] ? task.status : sub.status;
}

/** Every source the research found, once each. */
export const researchSourceCount = (r: Research): number => new Set(r.subquestions.flatMap((s) => s.sources.map((x) => x.url))).size;

// ---------- The plan under review ----------

export interface PlanCheck {
  /** The plan as it would be sent: each sub-question trimmed. */
  subquestions: string[];
  /** Each sub-question's problem, by index (null: none). */
  items: (string | null)[];
  /** What is wrong with the plan as a whole (how many sub-questions it has), or null. */
  plan: string | null;
  ok: boolean;
}

/** A plan checked as POST .../plan checks it: 1 to 8 sub-questions, each 1 to 1,000 characters. */
export function checkPlan(draft: readonly string[]): PlanCheck {
  const subquestions = draft.map((s) => s.trim());
  const items = subquestions.map((s) =>
    s.length === 0
      ? "Write the sub-question, or remove it."
      : s.length > MAX_SUBQUESTION_CHARS
        ? `At most ${MAX_SUBQUESTION_CHARS.toLocaleString("en")} characters (this one has ${s.length.toLocaleString("en")}).`
        : null,
  );
  const plan =
    subquestions.length < RESEARCH_MIN_TASKS
      ? `The plan needs at least ${RESEARCH_MIN_TASKS} sub-question${RESEARCH_MIN_TASKS === 1 ? "" : "s"}.`
      : subquestions.length > RESEARCH_MAX_TASKS
        ? `At most ${RESEARCH_MAX_TASKS} sub-questions: remove ${subquestions.length - RESEARCH_MAX_TASKS}.`
        : null;
  return { subquestions, items, plan, ok: plan === null && items.every((p) => p === null) };
}

/** Another sub-question may be added. */
export const canAddSubquestion = (draft: readonly unknown[]): boolean => draft.length < RESEARCH_MAX_TASKS;

/** The question in a research's message (`Research: <question>`), shown until the research is read. */
export const questionOfMessage = (content: string): string => content.replace(/^Research:\s*/, "");
