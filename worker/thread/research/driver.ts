// Research (PROTOCOL.md, "Research"), driven from the thread that asked: a plan of sub-questions (shown
// for review unless the person skips it), one task thread per sub-question started at once (the
// delegation's tasks: each its own object, so they run in parallel), their progress and sources
// followed as their frames reach this thread (live.ts), then one report written as an artifact. The
// thread's alarm polls the tasks while any runs, so a research survives a restart of any object: a
// task that ended while this one slept is counted when it wakes.
import type { Research, ResearchSource, StartResearchBody, Subquestion } from "../../../protocol";
import { costUsd } from "../../invoker/prices";
import type { Alarms } from "../../lib/alarms";
import { newId } from "../../lib/ids";
import type { Logger } from "../../lib/logger";
import type { PluginContext } from "../../plugins/contract";
import { delegate } from "../../plugins/delegation/tasks";
import type { Broadcaster } from "../broadcaster";
import type { Intake } from "../intake";
import { ok, refuse, type RoomReply } from "../room-reply";
import type { ThreadRecord } from "../store";
import { finishReport, numberedSources, parsePlan, PLAN_SYSTEM, planPrompt, REPORT_SYSTEM, reportPrompt, taskPrompt, titleOf } from "./report";
import { LiveResearches, mergedSources } from "./live";
import { publicResearch, ResearchStore, type ResearchRecord } from "./store";

/** How often the alarm looks at a running research's tasks (the frames tell it sooner). */
const POLL_MS = 5_000;
const TERMINAL = new Set(["completed", "failed", "cancelled"]);

export interface ResearchDefaults {
  review: boolean;
  minTasks: number;
  maxTasks: number;
  budgetUsd: number;
  timeLimitS: number;
  searchesPerTask: number;
}

export interface ResearchDeps {
  store: ResearchStore;
  thread: () => ThreadRecord | null;
  events: Broadcaster;
  intake: Intake;
  alarms: Alarms;
  /** The thread's own plugin context for research: the model, the owner's tasks, other threads, artifacts. */
  ctx: () => PluginContext;
  /** Stops a task in its own thread (its run, then the delegation ends it on both threads). */
  cancelTask(threadId: string, taskId: string): Promise<void>;
  /** The pages a task thread's answers found and fetched (their metadata's web calls). */
  sourcesOf(threadId: string): Promise<ResearchSource[]>;
  defaults: ResearchDefaults;
  logger: Logger;
  waitUntil(p: Promise<unknown>): void;
}

export class ResearchDriver {
  /** Reports being written by this instance: two tasks ending at once write one report. */
  private readonly writing = new Set<string>();
  /** The running researches, as the tasks' frames move them. */
  private readonly live: LiveResearches;

  constructor(private readonly deps: ResearchDeps) {
    this.live = new LiveResearches({ store: deps.store, events: deps.events, waitUntil: deps.waitUntil, next: (id) => this.next(id) });
  }

  get(id: string): Research | null {
    const r = this.deps.store.get(id);
    return r && publicResearch(r);
  }

  /** A research asked for (the route, `/research`, the tool): its card in the thread, then its plan. */
  start(t: ThreadRecord, body: StartResearchBody, source: string): RoomReply<Research> {
    const d = this.deps.defaults;
    const now = Date.now();
    const id = newId("res", now);
    const accepted = this.deps.intake.accept(t, { content: `Research: ${body.question}`, role: "system", source, run: false, metadata: { researchId: id } });
    if (!accepted.ok) return accepted;
    const r: ResearchRecord = {
      id,
      threadId: t.id,
      question: body.question,
      status: "planning",
      subquestions: [],
      artifactId: null,
      costUsd: 0,
      startedAt: now,
      endedAt: null,
      budgetUsd: body.budgetUsd ?? d.budgetUsd,
      timeLimitS: body.timeLimitS ?? d.timeLimitS,
      maxTasks: Math.min(body.maxTasks ?? d.maxTasks, d.maxTasks),
      maxSearches: (body.maxTasks ?? d.maxTasks) * d.searchesPerTask,
      searches: 0,
      ownCostUsd: 0,
      runningSince: null,
      note: null,
      messageId: accepted.value.message.id,
    };
    this.live.save(r);
    this.deps.waitUntil(this.plan(id, body.review ?? d.review));
    return ok(publicResearch(r));
  }

  /** The person's plan (as proposed, or edited) for a research under review: its tasks start. */
  async accept(id: string, subquestions: string[]): Promise<RoomReply<Research>> {
    const r = this.deps.store.get(id);
    if (!r) return refuse("not_found", "No such research in this thread");
    if (r.status !== "review") return refuse("conflict", `This research is ${r.status}, not waiting for its plan`);
    if (subquestions.length > r.maxTasks) return refuse("invalid_request", `A research takes at most ${r.maxTasks} sub-questions`);
    await this.launch(r, subquestions);
    return ok(this.get(id)!);
  }

  /** Stop: every task still running is cancelled at once; no report is written. */
  async stop(id: string): Promise<RoomReply<Research>> {
    const r = this.deps.store.get(id);
    if (!r) return refuse("not_found", "No such research in this thread");
    if (["done", "stopped", "failed"].includes(r.status)) return ok(publicResearch(r));
    // Every tab sees it stopped, its tasks with it, in one update; their threads are told next.
    const cancelled = r.subquestions.map((s): Subquestion => (s.taskId && !TERMINAL.has(s.status) ? { ...s, status: "cancelled" } : s));
    this.live.save({ ...r, status: "stopped", endedAt: Date.now(), note: "Stopped by the user", subquestions: cancelled });
    await this.cancelRunning(r);
    return ok(this.get(id)!);
  }

  /** A message for this thread: a research task's outcome is news for its research, not a run. */
  heard(taskId: string | undefined): boolean {
    if (!taskId || !this.deps.store.ofTask(taskId, false)) return false;
    this.deps.waitUntil(this.poll(taskId));
    return true;
  }

  /** The alarm: running researches' tasks looked at, time limits, and work a restart cut short. */
  async onAlarm(): Promise<void> {
    for (const r of this.deps.store.live()) {
      if (r.status === "planning" && Date.now() - r.startedAt > POLL_MS) await this.plan(r.id, false);
      else if (r.status === "running") await this.poll(null, r.id);
      else if (r.status === "writing") await this.write(r.id);
    }
    this.rearm();
  }

  /** A new instance: the alarm picks up what is live. */
  async wake(): Promise<void> {
    if (this.deps.store.live().length) await this.deps.alarms.request(Date.now() + 500);
  }

  // --- the steps --------------------------------------------------------------------------------

  private async plan(id: string, review: boolean): Promise<void> {
    const r = this.deps.store.get(id);
    const t = this.deps.thread();
    if (!r || r.status !== "planning" || !t) return;
    const { model } = this.deps.ctx();
    const { minTasks } = this.deps.defaults;
    let subs = [r.question];
    let spent = 0;
    if (!model.offline) {
      try {
        const answer = await model.ask({ model: t.model, system: PLAN_SYSTEM, prompt: planPrompt(r.question, Math.min(minTasks, r.maxTasks), r.maxTasks), maxTokens: 2_000 });
        spent = costUsd(t.model, answer.usage);
        subs = parsePlan(answer.text, r.maxTasks);
        if (!subs.length) subs = [r.question];
      } catch (err) {
        this.deps.logger.warn("research plan failed", { researchId: id, error: String(err) });
      }
    }
    const now = this.deps.store.get(id);
    if (!now || now.status !== "planning") return;
    const planned: ResearchRecord = { ...now, ownCostUsd: now.ownCostUsd + spent, costUsd: now.costUsd + spent, subquestions: subs.map((text) => ({ text, taskId: null, status: "planned", sources: [], costUsd: 0 })) };
    if (review) this.live.save({ ...planned, status: "review" });
    else await this.launch(planned, subs);
  }

  /** Each sub-question's task, all started at once. */
  private async launch(r: ResearchRecord, subs: string[]): Promise<void> {
    const t = this.deps.thread();
    if (!t) return;
    const running: ResearchRecord = { ...r, status: "running", runningSince: Date.now(), subquestions: subs.map((text) => ({ text, taskId: null, status: "planned", sources: [], costUsd: 0 })) };
    this.live.save(running);
    const ctx = this.deps.ctx();
    const from = { threadId: t.id, ownerId: t.ownerId, model: t.model };
    const limits = { maxIterations: 2, maxDepth: 2, maxConcurrentTasks: 100, costCapUsd: r.budgetUsd };
    // Each task is recorded as soon as it exists, before this object takes any other event: its outcome
    // (a notification, its frames) can only come after, and finds its research.
    await Promise.all(
      subs.map(async (sub, i) => {
        const out = await delegate(ctx, ctx.tasks.created, from, { prompt: taskPrompt(r.question, sub) }, limits).catch((err) => ({ ok: false as const, reason: String(err) }));
        if (!out.ok) return this.live.update(this.deps.store.get(r.id)!, (s, j) => (j === i ? { ...s, status: "failed" } : s));
        // Stopped while this task was being made: it stops too.
        if (this.deps.store.get(r.id)!.status !== "running") {
          await this.deps.cancelTask(out.task.threadId, out.task.id).catch((err) => this.deps.logger.warn("research: a task did not stop", { taskId: out.task.id, error: String(err) }));
          return this.live.update(this.deps.store.get(r.id)!, (s, j) => (j === i ? { ...s, taskId: out.task.id, status: "cancelled" } : s));
        }
        // Its frames may have told its status already (taskCreated): a later word is not undone.
        this.live.update(this.deps.store.get(r.id)!, (s, j) => (j !== i ? s : { ...s, taskId: out.task.id, status: s.status === "planned" ? out.task.status : s.status }));
      }),
    );
    await this.deps.alarms.request(Date.now() + POLL_MS);
    const now = this.deps.store.get(r.id)!;
    // Stopped while its tasks were being made: those made stop too.
    if (now.status !== "running") await this.cancelRunning(now);
    else await this.poll(null, r.id);
  }

  /** The tasks' statuses and costs from the owner's object; a research whose tasks all ended is written. */
  private async poll(taskId: string | null, researchId?: string): Promise<void> {
    const r = researchId ? this.deps.store.get(researchId) : taskId ? this.deps.store.ofTask(taskId) : null;
    if (!r || r.status !== "running") return;
    const { owner } = this.deps.ctx();
    const rows = await Promise.all(r.subquestions.map((s) => (s.taskId ? owner.tasks.get(s.taskId) : Promise.resolve(null))));
    const now = this.deps.store.get(r.id);
    if (!now || now.status !== "running") return;
    this.live.update(now, (s, i) => (rows[i] ? { ...s, status: rows[i]!.status, costUsd: rows[i]!.costUsd } : s));
    await this.next(now.id);
  }

  /** What follows a change: past a budget the rest stops and the report is written; all ended, it is written. */
  private async next(id: string): Promise<void> {
    const r = this.deps.store.get(id);
    if (!r || r.status !== "running") return;
    const limit = r.note
      ? r.note
      : r.costUsd >= r.budgetUsd!
        ? `The spending budget ($${r.budgetUsd!.toFixed(2)}) ran out`
        : Date.now() - r.startedAt >= r.timeLimitS! * 1000
          ? `The time limit (${r.timeLimitS} s) ran out`
          : r.searches >= r.maxSearches!
            ? `The search budget (${r.maxSearches} searches) ran out`
            : null;
    if (limit && !r.note) {
      // The tasks still researching stop; one being judged ends by itself, and its result counts.
      this.live.save({ ...r, note: `${limit}; the report is written from what was found` });
      await this.cancelRunning(r, ["pending", "running"]);
    }
    const now = this.deps.store.get(id);
    if (now?.status === "running" && now.subquestions.every((s) => TERMINAL.has(s.status))) await this.write(id);
  }

  /** The report: one model call over the findings and the numbered sources, kept as an artifact. */
  private async write(id: string): Promise<void> {
    if (this.writing.has(id)) return;
    this.writing.add(id);
    try {
      await this.writeReport(id);
    } finally {
      this.writing.delete(id);
    }
  }

  private async writeReport(id: string): Promise<void> {
    const r = this.deps.store.get(id);
    const t = this.deps.thread();
    if (!r || !t || (r.status !== "running" && r.status !== "writing")) return;
    if (r.status === "running") this.live.save({ ...r, status: "writing" });
    const ctx = this.deps.ctx();
    const rows = await Promise.all(r.subquestions.map((s) => (s.taskId ? ctx.owner.tasks.get(s.taskId) : Promise.resolve(null))));
    // What each task's answers hold of its searches and fetches: the record the report cites, whatever
    // frames this object heard or missed.
    const found = await Promise.all(
      rows.map((row) =>
        row
          ? this.deps.sourcesOf(row.threadId).catch((err) => {
              this.deps.logger.warn("research: a task's sources could not be read", { taskId: row.id, error: String(err) });
              return [];
            })
          : Promise.resolve([]),
      ),
    );
    const withSources = this.deps.store.get(id)!;
    this.live.update(withSources, (s, i) => ({ ...s, sources: mergedSources(s.sources, found[i], false) }));
    const sources = numberedSources(this.deps.store.get(id)!.subquestions);
    const note = r.note && !r.note.startsWith("Stopped") ? r.note.replace(/; the report is written from what was found$/, "") : null;
    let markdown = "";
    let spent = 0;
    try {
      const answer = await ctx.model.ask({ model: t.model, system: REPORT_SYSTEM, prompt: reportPrompt(r.question, r.subquestions, rows.map((row) => row?.result ?? null), sources, note), maxTokens: 8_000 });
      markdown = answer.text;
      spent = costUsd(t.model, answer.usage);
    } catch (err) {
      this.deps.logger.warn("research report failed", { researchId: id, error: String(err) });
      markdown = `# ${r.question}\n\nThe report could not be written: ${String(err).slice(0, 300)}`;
    }
    const now = this.deps.store.get(id);
    if (!now || now.status !== "writing") return;
    const content = finishReport(markdown, r.question, now.subquestions, sources, note);
    const made = ctx.thread.artifacts.create({ threadId: t.id, runId: `research:${id}`, messageId: now.messageId }, { title: titleOf(markdown, r.question), type: "markdown", content });
    const cost = now.costUsd + spent;
    if (!made.ok) this.live.save({ ...now, status: "failed", note: made.reason, endedAt: Date.now(), costUsd: cost, ownCostUsd: now.ownCostUsd + spent });
    else this.live.save({ ...now, status: "done", artifactId: made.artifact.id, endedAt: Date.now(), costUsd: cost, ownCostUsd: now.ownCostUsd + spent });
  }

  /** Cancels the research's tasks in `statuses` (any not ended, by default), each in its own thread. */
  private async cancelRunning(r: ResearchRecord, statuses?: string[]): Promise<void> {
    const ctx = this.deps.ctx();
    const stops = (status: string) => !TERMINAL.has(status) && (!statuses || statuses.includes(status));
    await Promise.all(
      r.subquestions.map(async (s) => {
        if (!s.taskId || !stops(s.status)) return;
        const row = await ctx.owner.tasks.get(s.taskId);
        if (row && stops(row.status)) await this.deps.cancelTask(row.threadId, row.id).catch((err) => this.deps.logger.warn("research: a task did not stop", { taskId: row.id, error: String(err) }));
      }),
    );
    const now = this.deps.store.get(r.id);
    if (now) this.live.update(now, (s) => (s.taskId && stops(s.status) ? { ...s, status: "cancelled" } : s));
  }

  private rearm(): void {
    const running = this.live.now();
    if (!running.length) return;
    const soonest = Math.min(...running.map((r) => Math.min((r.runningSince ?? r.startedAt) + r.timeLimitS! * 1000, Date.now() + POLL_MS)));
    this.deps.waitUntil(this.deps.alarms.request(Math.max(soonest, Date.now() + 100)));
  }
}
