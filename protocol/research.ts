// Research (PROTOCOL.md, "Research"): a question planned into sub-questions, each researched by a task
// thread at once, then one cited report (an artifact). What the Worker, the web app's research card and
// the tests share.
import type { TaskStatus, WebSource } from "./shapes";

export const RESEARCH_STATUSES = ["planning", "review", "running", "writing", "done", "stopped", "failed"] as const;
export type ResearchStatus = (typeof RESEARCH_STATUSES)[number];

/** A sub-question's status: "planned" before its task exists, then its task's. */
export type SubquestionStatus = "planned" | TaskStatus;

export interface Subquestion {
  text: string;
  /** Its task (null before the plan runs). */
  taskId: string | null;
  status: SubquestionStatus;
  /** What its task found so far: each URL once, the pages it fetched marked `fetched`. */
  sources: ResearchSource[];
  /** What its task's runs cost so far (an addition). */
  costUsd?: number;
}

export interface ResearchSource extends WebSource {
  /** The task fetched the page (web_fetch), not only found it in a search's results. */
  fetched?: boolean;
}

export interface Research {
  id: string;
  threadId: string;
  question: string;
  status: ResearchStatus;
  subquestions: Subquestion[];
  /** The report (an artifact of type markdown in the thread), once written. */
  artifactId: string | null;
  costUsd: number;
  startedAt: number;
  endedAt: number | null;
  /** Additions: the bounds it runs within, and why it ended early (a budget, a stop, a failure). */
  budgetUsd?: number;
  timeLimitS?: number;
  maxSearches?: number;
  note?: string | null;
}

export interface StartResearchBody {
  question: string;
  /** Show the plan for the person to edit or accept before the tasks start (default: the setting). */
  review?: boolean;
  maxTasks?: number;
  budgetUsd?: number;
  timeLimitS?: number;
}

/** Bounds on a research's plan (PROTOCOL.md leaves them to the deployment: 3 to 8 by default). */
export const RESEARCH_MIN_TASKS = 1;
export const RESEARCH_MAX_TASKS = 8;
export const MAX_RESEARCH_QUESTION = 4_000;
export const MAX_SUBQUESTION_CHARS = 1_000;
