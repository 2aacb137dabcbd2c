// The memory tool's commands (view, create, str_replace, insert, delete, rename), carried out on the
// owner's context files under memories/. The model names files as /memories/...; a path that would
// leave that folder (.., an absolute path elsewhere, a backslash, an odd character) is refused before
// anything is read. Answers are the text the model reads, errors included (they are its to fix).
import { MAX_CONTEXT_FILE_CHARS, MEMORY_DIR } from "../../../protocol";
import { isContextPath } from "../../../protocol";

/** The owner's context files, as the commands need them (D1 in the plugin, a Map in unit tests). */
export interface MemoryFiles {
  list(prefix: string): Promise<{ path: string; bytes: number }[]>;
  read(path: string): Promise<string | null>;
  write(path: string, content: string): Promise<void>;
  remove(paths: string[]): Promise<void>;
}

export type MemoryInput =
  | { command: "view"; path: string; view_range?: [number, number] }
  | { command: "create"; path: string; file_text: string }
  | { command: "str_replace"; path: string; old_str: string; new_str?: string }
  | { command: "insert"; path: string; insert_line: number; insert_text: string }
  | { command: "delete"; path: string }
  | { command: "rename"; old_path: string; new_path: string };

export class MemoryError extends Error {}

const ROOT = `/${MEMORY_DIR}`;
const MAX_FILES = 200;

/** `/memories/a/b.md` → `memories/a/b.md`; `/memories` → `memories`. Anything else throws. */
export function storagePath(modelPath: unknown): string {
  if (typeof modelPath !== "string") throw new MemoryError("Give a path under /memories");
  const p = modelPath.trim().replace(/\/+$/, "");
  if (p === ROOT) return MEMORY_DIR;
  if (!p.startsWith(`${ROOT}/`) || !isContextPath(p.slice(1))) {
    throw new MemoryError(`The path ${JSON.stringify(modelPath)} is not allowed: use plain names under /memories`);
  }
  return p.slice(1);
}

const shown = (path: string) => `/${path}`;
const numbered = (lines: string[], from = 1) => lines.map((l, i) => `${String(i + from).padStart(6)}\t${l}`).join("\n");

export async function runMemoryCommand(files: MemoryFiles, input: MemoryInput): Promise<{ text: string; changed: string[] }> {
  switch (input.command) {
    case "view":
      return { text: await view(files, storagePath(input.path), input.view_range), changed: [] };
    case "create": {
      const path = fileOnly(storagePath(input.path));
      checkSize(input.file_text);
      if ((await files.read(path)) === null && (await files.list(`${MEMORY_DIR}/`)).length >= MAX_FILES) {
        throw new MemoryError(`The memory folder holds ${MAX_FILES} files at most; delete or merge some first`);
      }
      await files.write(path, input.file_text ?? "");
      return { text: `File created successfully at: ${shown(path)}`, changed: [path] };
    }
    case "str_replace": {
      const path = storagePath(input.path);
      const content = await mustRead(files, path);
      const count = content.split(input.old_str).length - 1;
      if (!input.old_str || count === 0) throw new MemoryError(`No replacement was performed, old_str \`${input.old_str}\` did not appear verbatim in ${shown(path)}.`);
      if (count > 1) throw new MemoryError(`No replacement was performed: old_str \`${input.old_str}\` appears ${count} times in ${shown(path)}. Make it unique.`);
      const next = content.replace(input.old_str, () => input.new_str ?? "");
      checkSize(next);
      await files.write(path, next);
      return { text: `The memory file ${shown(path)} has been edited.`, changed: [path] };
    }
    case "insert": {
      const path = storagePath(input.path);
      const lines = (await mustRead(files, path)).split("\n");
      const at = input.insert_line;
      if (!Number.isInteger(at) || at < 0 || at > lines.length) {
        throw new MemoryError(`Invalid insert_line ${at}: it should be within [0, ${lines.length}]`);
      }
      const next = [...lines.slice(0, at), ...String(input.insert_text ?? "").split("\n"), ...lines.slice(at)].join("\n");
      checkSize(next);
      await files.write(path, next);
      return { text: `The memory file ${shown(path)} has been edited.`, changed: [path] };
    }
    case "delete": {
      const path = storagePath(input.path);
      if (path === MEMORY_DIR) throw new MemoryError("The memory folder itself cannot be deleted");
      const under = (await files.list(`${path}/`)).map((f) => f.path);
      const gone = (await files.read(path)) !== null ? [path, ...under] : under;
      if (gone.length === 0) throw new MemoryError(`The path ${shown(path)} does not exist`);
      await files.remove(gone);
      return { text: `Successfully deleted ${shown(path)}`, changed: gone };
    }
    case "rename": {
      const from = fileOnly(storagePath(input.old_path));
      const to = fileOnly(storagePath(input.new_path));
      const content = await mustRead(files, from);
      if ((await files.read(to)) !== null) throw new MemoryError(`The destination ${shown(to)} already exists`);
      await files.write(to, content);
      await files.remove([from]);
      return { text: `Successfully renamed ${shown(from)} to ${shown(to)}`, changed: [from, to] };
    }
    default:
      throw new MemoryError(`Unknown command ${JSON.stringify((input as { command?: unknown }).command)}`);
  }
}

async function view(files: MemoryFiles, path: string, range?: [number, number]): Promise<string> {
  const content = path === MEMORY_DIR ? null : await files.read(path);
  if (content !== null) {
    const lines = content.split("\n");
    const [from, to] = range ? [Math.max(1, range[0]), range[1] === -1 ? lines.length : Math.min(lines.length, range[1])] : [1, lines.length];
    return `Here's the content of ${shown(path)} with line numbers:\n${numbered(lines.slice(from - 1, to), from)}`;
  }
  const entries = await files.list(`${path}/`);
  if (entries.length === 0 && path !== MEMORY_DIR) throw new MemoryError(`The path ${shown(path)} does not exist`);
  const listing = entries.map((f) => `${f.bytes}\t${shown(f.path)}`).join("\n");
  return `The files in ${shown(path)}:\n${listing || "(none yet)"}`;
}

async function mustRead(files: MemoryFiles, path: string): Promise<string> {
  const content = await files.read(path);
  if (content === null) throw new MemoryError(`The path ${shown(path)} does not exist`);
  return content;
}

function fileOnly(path: string): string {
  if (path === MEMORY_DIR) throw new MemoryError("Name a file under /memories, not the folder");
  return path;
}

function checkSize(content: string | undefined): void {
  if ((content ?? "").length > MAX_CONTEXT_FILE_CHARS) throw new MemoryError(`A memory file holds ${MAX_CONTEXT_FILE_CHARS} characters at most`);
}
