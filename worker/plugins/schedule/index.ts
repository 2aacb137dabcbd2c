// Schedule: the model schedules its own work ("remind me tomorrow at 9", "every Monday, summarize my
// tasks") with schedule__create, __list and __cancel, and a person types `/schedule every day at 9:00
// <prompt>`. Both go through the thread's scheduler (the routes' checks, the per-user maximum); the
// fires are the thread object's alarm. A fired run's end is recorded on its schedule here. What the
// model makes waits for the user's approval: schedule__create asks (as an MCP tool that asks does),
// and a `/schedule` the model writes makes its schedule paused, for the user to turn on.
import type { Message, Schedule, ScheduleBody } from "../../../protocol";
import { localMoment } from "../../lib/schedule-time";
import type { Command, PluginContext, PluginDefinition } from "../contract";
import { parsePhrase } from "./phrases";

interface CreateInput {
  prompt?: string;
  name?: string;
  at?: string;
  every_seconds?: number;
  cron?: string;
  timezone?: string;
}

const timezoneOf = (ctx: PluginContext) => ctx.thread.get()?.timezone ?? "UTC";

/** A command line the person typed in their own message, not one the model wrote in its answer. */
const typedByPerson = (message: Message, command: Command) =>
  message.role === "user" && message.source === "web" && message.content.split(/\r?\n/).some((line) => line.trimEnd() === command.raw);

/** An ISO 8601 time: with an offset (or Z) as written, without one on the wall clock of `timezone`. */
function momentOf(at: string, timezone: string): number | null {
  if (/(?:Z|[+-]\d{2}:?\d{2})$/i.test(at.trim())) {
    const t = Date.parse(at);
    return Number.isFinite(t) ? t : null;
  }
  const m = at.trim().match(/^(\d{4}-\d{2}-\d{2})[T ](\d{1,2}):(\d{2})(?::\d{2}(?:\.\d+)?)?$/);
  return m ? localMoment(timezone, m[1], Number(m[2]), Number(m[3])) : null;
}

/** How a schedule reads to the model and in notices. */
function describeSchedule(s: Schedule): string {
  const when = s.at !== null ? `once at ${new Date(s.at).toISOString()}` : s.every !== null ? `every ${s.every} s` : `cron "${s.cron}" (${s.timezone})`;
  const next = s.nextRunAt ? `next ${new Date(s.nextRunAt).toISOString()}` : s.enabled ? "done" : "paused";
  return `${s.id} "${s.name}": ${when}; ${next}`;
}

async function create(ctx: PluginContext, input: CreateInput): Promise<string | { content: string; isError: true }> {
  const timezone = input.timezone ?? timezoneOf(ctx);
  const body: ScheduleBody & { prompt: string } = { prompt: input.prompt ?? "", timezone, ...(input.name ? { name: input.name } : {}) };
  if (input.at !== undefined) {
    const at = momentOf(input.at, timezone);
    if (at === null) return { content: `at must be an ISO 8601 time, e.g. 2026-12-01T09:00 (read in ${timezone}) or 2026-12-01T09:00Z`, isError: true };
    body.at = at;
  }
  if (input.every_seconds !== undefined) body.every = input.every_seconds;
  if (input.cron !== undefined) body.cron = input.cron;
  const made = await ctx.thread.schedules.create(body);
  return made.ok ? `Scheduled: ${describeSchedule(made.schedule)}` : { content: `Not scheduled: ${made.reason}`, isError: true };
}

export const schedulePlugin: PluginDefinition = {
  name: "schedule",
  version: "1.0.0",
  description: "Scheduled prompts: schedule__create, __list, __cancel for the model, and /schedule for people.",
  tools: [
    {
      name: "create",
      description: "Schedules a prompt to be posted into this thread later: once (at), every N seconds, or on a cron expression.",
      describe: (ctx) =>
        `Schedules a prompt that this thread receives later, as if the user sent it, and answers then: once (at), ` +
        `every N seconds (every_seconds), or on a five-field cron expression (cron). Give exactly one. The user's ` +
        `timezone is ${timezoneOf(ctx)}: times without an offset, and cron, are read in it unless you give another. ` +
        `Write the prompt as the instruction your future self should carry out. The user approves each schedule before it is made.`,
      inputSchema: {
        type: "object",
        properties: {
          prompt: { type: "string", description: "What to do when it fires" },
          name: { type: "string", description: "A short label" },
          at: { type: "string", description: "ISO 8601, e.g. 2026-12-01T09:00 (in the timezone) or with an offset" },
          every_seconds: { type: "integer", minimum: 1 },
          cron: { type: "string", description: "minute hour day month weekday, e.g. 0 9 * * 1" },
          timezone: { type: "string", description: "IANA name; defaults to the user's" },
        },
        required: ["prompt"],
      },
      // A schedule runs, and spends, with nobody there: the user approves each one the model makes.
      asks: true,
      handler: (input: CreateInput, _call, ctx) => create(ctx, input),
    },
    {
      name: "list",
      description: "Lists this thread's schedules with their ids and next times.",
      inputSchema: { type: "object", properties: {} },
      handler: (_input, _call, ctx) => ctx.thread.schedules.list().map(describeSchedule).join("\n") || "No schedules in this thread.",
    },
    {
      name: "cancel",
      description: "Deletes one of this thread's schedules by id; it never fires again.",
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      async handler(input: { id?: string }, _call, ctx) {
        return (await ctx.thread.schedules.cancel(String(input.id ?? "")))
          ? `Cancelled ${input.id}.`
          : { content: `No schedule ${JSON.stringify(input.id)} in this thread (schedule__list shows them)`, isError: true };
      },
    },
  ],
  register: (ctx) => ({
    async onCommand(command, run) {
      if (command.name !== "schedule") return false;
      const phrase = parsePhrase(command.args, timezoneOf(ctx), Date.now());
      const typed = typedByPerson(run.message, command);
      const made = phrase.ok ? await ctx.thread.schedules.create(typed ? phrase.body : { ...phrase.body, enabled: false }) : phrase;
      const notice = !made.ok
        ? `Not scheduled: ${made.reason}`
        : typed
          ? `Scheduled: ${describeSchedule(made.schedule)}`
          : `Scheduled by the assistant, paused until you turn it on: ${describeSchedule(made.schedule)}`;
      await ctx.sendToThread(run.threadId, notice, { role: "system", source: "schedule", run: false });
      return true;
    },
    onPipelineComplete(outcome, run) {
      const id = run.message.metadata.scheduleId;
      if (typeof id === "string") ctx.thread.schedules.settle(id, outcome.status);
    },
  }),
};
