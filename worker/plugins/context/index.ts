// What the model is given besides the message: the owner's context files and the thread's project
// (its instructions and documents' text, after them: both in `system`, cached; a project too large
// for that is named, and its passages are retrieved: thread/run/project-knowledge.ts) and,
// when the object holds no model view of the branch (a thread that came from D1 with text only),
// the branch's recent history (in the prompt). The files count against the model's window: past
// `maxShare` of it, the largest are cut, each with a note that says so.
import { z } from "zod";
import type { PluginDefinition } from "../contract";
import { cutToFit, formatContextSection, formatHistorySection, formatProjectSection, projectTexts, SECTION_SEPARATOR, selectContextFiles } from "./format";

export const contextSettings = z.object({
  historyLimit: z.number().int().min(0).max(500).default(50),
  maxFileBytes: z.number().int().min(1024).max(1_000_000).default(50_000),
  /** The share of the model's context window the files may take. */
  maxShare: z.number().min(0.01).max(0.9).default(0.25),
});
type Settings = z.infer<typeof contextSettings>;

/** Bytes of context files a window of `contextWindow` tokens leaves room for (about 4 bytes a token). */
export const contextBudgetBytes = (contextWindow: number, maxShare: number) => Math.floor(contextWindow * maxShare * 4);

export const contextPlugin: PluginDefinition<Settings> = {
  name: "context",
  version: "2.1.0",
  description: "Injects context files into the system prompt, and history when the conversation is not resident.",
  settings: contextSettings,
  register(ctx) {
    // The formatted section, kept while the files (the object's cached copy) and its limits stay.
    let cache: { files: unknown; project: unknown; key: string; section: string } | null = null;

    function contextSection(contextWindow: number, retrieves: boolean): string {
      const files = ctx.thread.contextFiles();
      const project = ctx.thread.project();
      const { maxFileBytes, maxShare } = ctx.settings;
      const key = `${maxFileBytes}|${maxShare}|${contextWindow}|${retrieves}`;
      if (cache?.files !== files || cache.project !== project || cache.key !== key) {
        const selected = selectContextFiles(files);
        // The project's text files share the budget with the context files.
        const { cap } = cutToFit([...selected, ...projectTexts(project, retrieves)], maxFileBytes, contextBudgetBytes(contextWindow, maxShare));
        const section = [formatContextSection(selected, cap), formatProjectSection(project, cap, retrieves)].filter(Boolean).join(SECTION_SEPARATOR);
        cache = { files, project, key, section };
      }
      return cache.section;
    }

    return {
      onBeforeInvoke(prompt, run) {
        const system = [prompt.system, contextSection(run.contextWindow, run.projectRetrieves === true)].filter(Boolean).join(SECTION_SEPARATOR);
        if (run.resident || ctx.settings.historyLimit === 0) return { ...prompt, system };
        const history = formatHistorySection(ctx.thread.history(run.messageId, ctx.settings.historyLimit));
        return { system, prompt: [history, prompt.prompt].filter(Boolean).join(SECTION_SEPARATOR) };
      },
    };
  },
};
