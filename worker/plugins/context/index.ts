// What the model is given besides the message: the user's context files (in `system`, cached) and,
// when the object holds no live conversation, the thread's recent history (in the prompt).
import { z } from "zod";
import { lastTextMessages } from "../../db/messages";
import { listContextFiles, readContextFiles } from "../../db/context-files";
import type { PluginDefinition } from "../contract";
import { formatContextSection, formatHistorySection, SECTION_SEPARATOR, selectContextFiles } from "./format";

const settings = z.object({
  historyLimit: z.number().int().min(0).max(500).default(50),
  maxFileBytes: z.number().int().min(1024).max(1_000_000).default(50_000),
});
type Settings = z.infer<typeof settings>;

export const contextPlugin: PluginDefinition<Settings> = {
  name: "context",
  version: "1.0.0",
  description: "Injects context files into the system prompt, and history when the conversation is not resident.",
  settings,
  register(ctx) {
    // The formatted section, cached in the object; the file listing (paths and times) is its key.
    let cache: { key: string; section: string } | null = null;

    async function contextSection(ownerId: string): Promise<string> {
      const listing = await listContextFiles(ctx.db, ownerId);
      const key = `${ownerId}|${ctx.settings.maxFileBytes}|${listing.map((f) => `${f.path}@${f.updatedAt}:${f.bytes}`).join(",")}`;
      if (cache?.key !== key) {
        const files = listing.length ? selectContextFiles(await readContextFiles(ctx.db, ownerId)) : [];
        cache = { key, section: formatContextSection(files, ctx.settings.maxFileBytes) };
      }
      return cache.section;
    }

    return {
      async onBeforeInvoke(prompt, run) {
        const system = [prompt.system, await contextSection(run.ownerId)].filter(Boolean).join(SECTION_SEPARATOR);
        if (run.resident || ctx.settings.historyLimit === 0) return { ...prompt, system };
        // The model lost (or never had) this thread's conversation: give it the recent history.
        const rows = (await lastTextMessages(ctx.db, run.threadId, ctx.settings.historyLimit + 1)).filter(
          (m) => m.id !== run.messageId,
        );
        const history = formatHistorySection(rows.slice(-ctx.settings.historyLimit));
        return { system, prompt: [history, prompt.prompt].filter(Boolean).join(SECTION_SEPARATOR) };
      },
    };
  },
};
