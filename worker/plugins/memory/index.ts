// Memory: the Messages API's memory tool, carried out on the owner's context files under memories/.
// The model keeps notes across threads there; a person sees and edits the same files on the Context
// page, which the thread's clients reload when a run changes them (context:changed). The context
// plugin does not inject memories/: the model reads its notes through this tool when it needs them.
import { and, eq, inArray } from "drizzle-orm";
import { contextFiles } from "../../db/schema";
import { contextQuotaMessage, contextQuotaOf, listContextFilesUnder, putContextFile, type ContextQuota } from "../../db/context-files";
import { configOf } from "../../env";
import type { Db } from "../../db/client";
import { MEMORY_TOOL } from "../../../protocol";
import type { PluginDefinition } from "../contract";
import { MemoryError, runMemoryCommand, type MemoryFiles, type MemoryInput } from "./commands";

/** One owner's files in D1, within their quota. */
export function d1MemoryFiles(db: Db, ownerId: string, quota: ContextQuota): MemoryFiles {
  const mine = eq(contextFiles.ownerId, ownerId);
  return {
    list: (prefix) => listContextFilesUnder(db, ownerId, prefix),
    async read(path) {
      const row = await db.select({ content: contextFiles.content }).from(contextFiles).where(and(mine, eq(contextFiles.path, path))).get();
      return row?.content ?? null;
    },
    async write(path, content) {
      if (!(await putContextFile(db, ownerId, path, content, quota))) throw new MemoryError(contextQuotaMessage(quota));
    },
    async remove(paths) {
      await db.delete(contextFiles).where(and(mine, inArray(contextFiles.path, paths)));
    },
  };
}

export const memoryPlugin: PluginDefinition = {
  name: "memory",
  version: "1.0.0",
  description: "The memory tool: the model's own notes, kept in your context files under memories/.",
  builtinTools: [
    {
      description: "Views, creates and edits notes under /memories (your context files, memories/ folder).",
      definition: () => ({ type: "memory_20250818", name: MEMORY_TOOL }),
      async handler(input: MemoryInput, call, ctx) {
        try {
          const { text, changed } = await runMemoryCommand(d1MemoryFiles(ctx.db, call.ownerId, contextQuotaOf(configOf(ctx.env))), input);
          if (changed.length) await ctx.broadcast(call.threadId, "context:changed", { threadId: call.threadId, paths: changed });
          return text;
        } catch (err) {
          if (err instanceof MemoryError) return { content: err.message, isError: true };
          throw err;
        }
      },
    },
  ],
  register: () => ({}),
};
