// A thread still called "New thread" is named from its first exchange, by a short question to a small
// model (the offline model cannot summarize: its title is the first words). A name a person gave is
// never replaced, also when they gave it while the title was being written.
import { z } from "zod";
import { costUsd } from "../../invoker/prices";
import { newId } from "../../lib/ids";
import type { PluginDefinition } from "../contract";

export const UNNAMED = "New thread";
const MAX_TITLE = 80;

const settings = z.object({ model: z.string().min(1).max(100).default("claude-haiku-4-5") });
type Settings = z.infer<typeof settings>;

const SYSTEM = "You name chat threads. Answer with a title of at most six words for the conversation you are shown: no quotes, no final punctuation.";

/** The first words of the question, as a title. */
export function firstWords(text: string): string {
  const words = text.replace(/\s+/g, " ").trim().split(" ").slice(0, 6).join(" ");
  return words.length > MAX_TITLE ? `${words.slice(0, MAX_TITLE - 1)}…` : words;
}

function cleanTitle(text: string): string {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  return line.replace(/^["'“”#*\s]+|["'“”.*\s]+$/g, "").slice(0, MAX_TITLE).trim();
}

export const titlesPlugin: PluginDefinition<Settings> = {
  name: "titles",
  version: "1.0.0",
  description: "Names a new thread from its first exchange.",
  settings,
  register(ctx) {
    const unnamed = () => {
      const t = ctx.thread.get();
      return t && t.name === UNNAMED && !t.named ? t : null;
    };
    return {
      async onPipelineComplete(outcome, run) {
        if (outcome.status !== "completed" || !unnamed() || run.message.role !== "user") return;
        const answer = outcome.result?.output ?? "";
        let title = firstWords(run.content);
        if (!ctx.model.offline) {
          const startedAt = Date.now();
          const prompt = `User: ${run.content.slice(0, 2_000)}\n\nAssistant: ${answer.slice(0, 2_000)}`;
          const { text, usage } = await ctx.model.ask({ model: ctx.settings.model, system: SYSTEM, prompt, maxTokens: 30 });
          title = cleanTitle(text) || title;
          // What the title cost counts as a run of its own on the thread's usage.
          ctx.thread.usage({
            id: newId("run"),
            threadId: run.threadId,
            ownerId: run.ownerId,
            taskId: null,
            model: ctx.settings.model,
            ...usage,
            costUsd: costUsd(ctx.settings.model, usage),
            durationMs: Date.now() - startedAt,
            status: "title",
            startedAt,
          });
        }
        if (title && unnamed()) ctx.thread.rename(title);
      },
    };
  },
};
