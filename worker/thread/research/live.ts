// The researches a thread is running, as its task threads' frames move them (task:created, task:stream,
// task:progress, task:evaluated, task:validated, task:failed). Every frame of the thread passes here,
// tokens too, so the running researches are read from memory kept between saves, and storage is
// touched only when something moves: a task's start, status or cost, a search, a tool result's pages.
// What follows a change (a budget passed, every task ended) is the driver's (`next`).
import { WEB_FETCH_TOOL, WEB_SEARCH_TOOL, type EventFrame, type ResearchSource, type Subquestion, type Task } from "../../../protocol";
import type { Broadcaster } from "../broadcaster";
import { taskPrompt } from "./report";
import { publicResearch, type ResearchRecord, type ResearchStore } from "./store";

export interface LiveDeps {
  store: ResearchStore;
  events: Broadcaster;
  waitUntil(p: Promise<unknown>): void;
  /** What follows a change to research `id` (driver.ts). */
  next(id: string): Promise<void>;
}

export class LiveResearches {
  private running: ResearchRecord[] | null = null;

  constructor(private readonly deps: LiveDeps) {
    deps.events.follow((frame) => this.onFrame(frame));
  }

  private onFrame(frame: EventFrame): void {
    // Every frame of the thread passes here (tokens too): a thread with no research running stops at once.
    if (!frame.event.startsWith("task:") || !this.now().length) return;
    if (frame.event === "task:created") return this.taskCreated(frame.data.task);
    if (frame.event === "task:validated" || frame.event === "task:failed" || frame.event === "task:evaluated" || frame.event === "task:progress") return this.taskMoved(frame.data.task);
    if (frame.event !== "task:stream") return;
    const taskId = frame.data.task.id;
    const found = this.withTask(taskId);
    if (!found) return;
    // Its run is under way: a task still pending on the card is running, whichever frame says so first.
    const waiting = (s: Subquestion) => s.taskId === taskId && (s.status === "pending" || s.status === "planned");
    if (found.subquestions.some(waiting)) this.update(found, (s) => (waiting(s) ? { ...s, status: "running" } : s));
    const e = frame.data.data as { type?: string; toolName?: string; sources?: { url: string; title: string | null }[] };
    if (frame.data.event !== "pipeline:stream" || (e.type !== "server_tool_call" && e.type !== "server_tool_result")) return;
    const r = this.withTask(taskId);
    if (!r) return;
    if (e.type === "server_tool_call" && e.toolName === WEB_SEARCH_TOOL) {
      this.save({ ...r, searches: r.searches + 1 });
      void this.deps.next(r.id);
    } else if (e.type === "server_tool_result" && e.sources?.length) {
      const fetched = e.toolName === WEB_FETCH_TOOL;
      this.update(r, (s) => (s.taskId === taskId ? { ...s, sources: mergedSources(s.sources, e.sources!, fetched) } : s));
    }
  }

  /**
   * A task this thread just made (announced here before its thread gets its prompt): a research's
   * sub-question takes its id at once, so the task's first frames, which may come before its
   * delegation answers, find their research.
   */
  private taskCreated(task: Task): void {
    for (const r of this.now()) {
      const i = r.subquestions.findIndex((s) => !s.taskId && taskPrompt(r.question, s.text) === task.prompt);
      if (i >= 0) return this.update(r, (s, j) => (j === i ? { ...s, taskId: task.id, status: task.status } : s));
    }
  }

  private taskMoved(task: Task): void {
    const r = this.withTask(task.id);
    if (!r) return;
    this.update(r, (s) => (s.taskId === task.id ? { ...s, status: task.status, costUsd: task.costUsd } : s));
    this.deps.waitUntil(this.deps.next(r.id));
  }

  /** Each sub-question through `change`; the cost follows; kept and told if anything moved. */
  update(r: ResearchRecord, change: (s: Subquestion, i: number) => Subquestion): void {
    const subquestions = r.subquestions.map(change);
    const tasksCost = subquestions.reduce((sum, s) => sum + (s.costUsd ?? 0), 0);
    const next = { ...r, subquestions, costUsd: r.ownCostUsd + tasksCost };
    if (JSON.stringify(next) !== JSON.stringify(r)) this.save(next);
  }

  /**
   * The thread's running researches, kept in memory between saves (every write is a save): the frames'
   * path reads them for each of a task's frames, tokens included.
   */
  now(): ResearchRecord[] {
    this.running ??= this.deps.store.live().filter((r) => r.status === "running");
    return this.running;
  }

  /** The running research a task belongs to, if any. */
  withTask(taskId: string): ResearchRecord | null {
    return this.now().find((r) => r.subquestions.some((s) => s.taskId === taskId)) ?? null;
  }

  /** Kept, and told to every tab (research:updated). */
  save(r: ResearchRecord): void {
    this.running = null;
    this.deps.store.put(r);
    this.deps.events.emit("research:updated", { threadId: r.threadId, research: publicResearch(r) });
  }
}

/** A task's sources so far with those a tool result brought: each URL once, fetched once fetched. */
export function mergedSources(had: ResearchSource[], found: ResearchSource[], fetched: boolean): ResearchSource[] {
  const byUrl = new Map(had.map((s) => [s.url, s]));
  for (const f of found) {
    const before = byUrl.get(f.url);
    byUrl.set(f.url, { url: f.url, title: before?.title ?? f.title, ...(fetched || f.fetched || before?.fetched ? { fetched: true } : {}) });
  }
  return [...byUrl.values()];
}
