// What the model is given besides the message: the owner's context files (in `system`, cached) and,
// when the object holds no model view of the branch (a thread that came from D1 with text only),
// the branch's recent history (in the prompt).
import { z } from "zod";
import type { PluginDefinition } from "../contract";
import { formatContextSection, formatHistorySection, SECTION_SEPARATOR, selectContextFiles } from "./format";

const settings = z.object({
  historyLimit: z.number().int().min(0).max(500).default(50),
  maxFileBytes: z.number().int().min(1024).max(1_000_000).default(50_000),
});
type Settings = z.infer<typeof settings>;

export const contextPlugin: PluginDefinition<Settings> = {
  name: "context",
  version: "2.0.0",
  description: "Injects context files into the system prompt, and history when the conversation is not resident.",
  settings,
  register(ctx) {
    // The formatted section, kept while the files (the object's cached copy) stay the same.
    let cache: { files: unknown; maxBytes: number; section: string } | null = null;

    function contextSection(): string {
      const files = ctx.thread.contextFiles();
      if (cache?.files !== files || cache.maxBytes !== ctx.settings.maxFileBytes) {
        cache = { files, maxBytes: ctx.settings.maxFileBytes, section: formatContextSection(selectContextFiles(files), ctx.settings.maxFileBytes) };
      }
      return cache.section;
    }

    return {
      onBeforeInvoke(prompt, run) {
        const system = [prompt.system, contextSection()].filter(Boolean).join(SECTION_SEPARATOR);
        if (run.resident || ctx.settings.historyLimit === 0) return { ...prompt, system };
        const history = formatHistorySection(ctx.thread.history(run.messageId, ctx.settings.historyLimit));
        return { system, prompt: [history, prompt.prompt].filter(Boolean).join(SECTION_SEPARATOR) };
      },
    };
  },
};
