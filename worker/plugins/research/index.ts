// Research's doors in a conversation: a person's `/research <question>`, and the model's research__start
// when it judges a question needs many searches and one cited report. Both start it in the thread's
// research driver (worker/thread/research/), which plans, fans out and writes the report.
import type { Command, PluginContext, PluginDefinition, RunInfo } from "../contract";

const GUIDE = [
  "## Research",
  "For a question that needs many searches and a cited report (comparisons, surveys, open questions with many sides), start a research with the research__start tool:",
  "it plans sub-questions, researches each in a task thread of its own at once, and writes one report with numbered citations as an artifact. Tell the user it has started; do not research it yourself as well.",
  "A user message that is a line `/research <question>` starts one by itself once you have answered: say only that it is starting.",
].join("\n");

function started(ctx: PluginContext, question: string): string {
  const out = ctx.thread.research.start(question);
  return out.ok ? `Research ${out.research.id} started: its plan, then its tasks, show in the thread.` : `Research refused: ${out.reason}`;
}

export const researchPlugin: PluginDefinition = {
  name: "research",
  version: "1.0.0",
  description: "/research and research__start: sub-questions researched by task threads at once, one cited report.",
  tools: [
    {
      name: "start",
      description: "Start a research on a question: sub-questions researched on the web by parallel tasks, then one report with numbered citations, as an artifact.",
      inputSchema: { type: "object", properties: { question: { type: "string", description: "The question, complete and self-contained" } }, required: ["question"] },
      async handler(input: { question: string }, _call, ctx) {
        const question = input.question?.trim();
        if (!question) return { content: "A research needs a question", isError: true };
        if (ctx.thread.get()?.kind === "task") return { content: "A task thread does not start research; answer your part", isError: true };
        return started(ctx, question);
      },
    },
  ],
  register(ctx) {
    return {
      async onBeforeInvoke(prompt, run: RunInfo) {
        if (run.thread.kind === "task") return prompt;
        return { ...prompt, system: prompt.system ? `${prompt.system}\n\n---\n\n${GUIDE}` : GUIDE };
      },
      async onCommand(command: Command, run: RunInfo) {
        if (command.name !== "research") return false;
        const question = command.args.trim();
        if (!question || run.thread.kind === "task") return true;
        const out = ctx.thread.research.start(question);
        if (!out.ok) await ctx.sendToThread(run.threadId, `Research refused: ${out.reason}`, { role: "system", source: "research", run: false });
        return true;
      },
    };
  },
};
