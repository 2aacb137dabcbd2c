// Memory: the Messages API's memory tool, carried out on the owner's context files under memories/.
// The model keeps notes across threads there; a person sees and edits the same files on the Context
// page, which the thread's clients reload when a run changes them (context:changed). The context
// plugin does not inject memories/: the model reads its notes through this tool when it needs them.
import { MEMORY_DIR, MEMORY_TOOL } from "../../../protocol";
import { configOf } from "../../env";
import { contextQuotaMessage, contextQuotaOf } from "../../lib/context-quota";
import type { PluginDefinition } from "../contract";
import type { OwnerPort } from "../ports";
import { MemoryError, runMemoryCommand, type MemoryFiles, type MemoryInput } from "./commands";

/** The owner's files, kept by their object within their quota; `quotaMessage` says why a write was refused. */
export function ownerMemoryFiles(files: OwnerPort["files"], quotaMessage: string): MemoryFiles {
  return {
    list: (prefix) => files.under(prefix),
    read: async (path) => (await files.get(path))?.content ?? null,
    async write(path, content) {
      if (!(await files.put(path, content))) throw new MemoryError(quotaMessage);
    },
    async remove(paths) {
      await files.remove(paths);
    },
  };
}

const PROJECTS = `${MEMORY_DIR}/projects`;

/**
 * The memory folder a thread sees as /memories: in a project, the project's own (memories/projects/<id>/),
 * so its threads share what they learn; outside one, the owner's, without the projects' folders.
 */
export function folderFiles(files: MemoryFiles, projectId: string | null): MemoryFiles {
  const root = `${MEMORY_DIR}/`;
  if (!projectId) {
    const hidden = (p: string) => p === PROJECTS || p.startsWith(`${PROJECTS}/`);
    return {
      list: async (prefix) => (await files.list(prefix)).filter((f) => !hidden(f.path)),
      read: async (p) => (hidden(p) ? null : files.read(p)),
      async write(p, content) {
        if (hidden(p)) throw new MemoryError(`/${PROJECTS} holds the projects' own notes; write elsewhere`);
        await files.write(p, content);
      },
      remove: (paths) => files.remove(paths.filter((p) => !hidden(p))),
    };
  }
  const base = `${PROJECTS}/${projectId}`;
  const stored = (p: string) => (p === MEMORY_DIR ? base : p.startsWith(root) ? `${base}/${p.slice(root.length)}` : p);
  const seen = (p: string) => (p.startsWith(`${base}/`) ? `${root}${p.slice(base.length + 1)}` : p);
  return {
    list: async (prefix) => (await files.list(stored(prefix))).map((f) => ({ ...f, path: seen(f.path) })),
    read: (p) => files.read(stored(p)),
    write: (p, content) => files.write(stored(p), content),
    remove: (paths) => files.remove(paths.map(stored)),
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
          const { text, changed } = await runMemoryCommand(
            folderFiles(ownerMemoryFiles(ctx.owner.files, contextQuotaMessage(contextQuotaOf(configOf(ctx.env)))), ctx.thread.get()?.projectId ?? null),
            input,
          );
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
