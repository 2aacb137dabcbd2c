import type { Message } from "../../../protocol";

export const PRIORITY_FILES = ["memory.md", "world-state.md", "thread-summaries.md", "inbox.md"];
export const SECTION_SEPARATOR = "\n\n---\n\n";

export interface ContextFile {
  path: string;
  content: string;
}

/** Markdown files only, drafts left out, the priority files first (in their order), then by path. */
export function selectContextFiles<T extends ContextFile>(files: T[]): T[] {
  const rank = (p: string) => {
    const i = PRIORITY_FILES.indexOf(p.split("/").pop()!);
    return i === -1 ? PRIORITY_FILES.length : i;
  };
  return files
    .filter((f) => f.path.endsWith(".md") && !f.path.endsWith(".draft.md"))
    .sort((a, b) => rank(a.path) - rank(b.path) || a.path.localeCompare(b.path));
}

export function truncateBytes(content: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(content);
  if (bytes.length <= maxBytes) return content;
  const kept = new TextDecoder().decode(bytes.slice(0, maxBytes)).replace(/\uFFFD$/, "");
  return `${kept}\n\n[… truncated: ${bytes.length - maxBytes} more bytes not shown]`;
}

export function formatContextSection(files: ContextFile[], maxBytes: number): string {
  if (files.length === 0) return "";
  return ["# Context", ...files.map((f) => `## ${f.path}\n\n${truncateBytes(f.content, maxBytes)}`)].join("\n\n");
}

export function formatHistorySection(rows: Pick<Message, "role" | "content">[]): string {
  if (rows.length === 0) return "";
  return ["# Conversation History", ...rows.map((m) => `[${m.role}]: ${m.content}`)].join("\n\n");
}
