import { MEMORY_DIR, type Message } from "../../../protocol";
import type { RunProject } from "../../lib/run-project";

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
    // memories/ is the model's own notebook: it reads it through the memory tool when it needs to.
    .filter((f) => f.path.endsWith(".md") && !f.path.endsWith(".draft.md") && !f.path.startsWith(`${MEMORY_DIR}/`))
    .sort((a, b) => rank(a.path) - rank(b.path) || a.path.localeCompare(b.path));
}

export function truncateBytes(content: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(content);
  if (bytes.length <= maxBytes) return content;
  const kept = new TextDecoder().decode(bytes.slice(0, maxBytes)).replace(/\uFFFD$/, "");
  return `${kept}\n\n[… truncated: ${bytes.length - maxBytes} more bytes not shown]`;
}

/**
 * The most bytes any one file may keep so that all of them fit `budget`: the files over it (the
 * largest) are cut to it, the others stay whole. Null when everything fits as it is.
 */
export function fileCap(sizes: number[], budget: number): number | null {
  const sorted = [...sizes].sort((a, b) => a - b);
  let used = 0;
  for (let i = 0; i < sorted.length; i++) {
    const left = sorted.length - i;
    // Every file from here on is at least sorted[i]: if they all fit whole at that size, go on.
    if (used + sorted[i] * left > budget) return Math.max(0, Math.floor((budget - used) / left));
    used += sorted[i];
  }
  return null;
}

const byteLength = (s: string) => new TextEncoder().encode(s).length;

/** The files cut to fit `budgetBytes` (the largest first), by path. */
export function cutToFit(files: ContextFile[], perFileMax: number, budgetBytes: number): { cap: number; cut: string[] } {
  const sizes = files.map((f) => Math.min(byteLength(f.content), perFileMax));
  const cap = Math.min(perFileMax, fileCap(sizes, budgetBytes) ?? perFileMax);
  return { cap, cut: files.filter((f) => byteLength(f.content) > cap).map((f) => f.path) };
}

export function formatContextSection(files: ContextFile[], maxBytes: number): string {
  if (files.length === 0) return "";
  return ["# Context", ...files.map((f) => `## ${f.path}\n\n${truncateBytes(f.content, maxBytes)}`)].join("\n\n");
}

/** Whole, a PDF goes as itself (a document block at the start of the conversation), not as its text. */
const sentWhole = (f: RunProject["files"][number]) => f.mediaType.startsWith("image/") || f.mediaType === "application/pdf";

/**
 * A project's part of the system prompt: its instructions, then its documents' text (cut as context
 * files are), its images and PDFs by name; or, for a project too large to send whole (`retrieves`),
 * its documents by name and how to search them.
 */
export function formatProjectSection(project: RunProject | null, maxBytes: number, retrieves = false): string {
  if (!project) return "";
  const parts = [`# Project: ${project.name}`];
  if (project.instructions.trim()) parts.push(project.instructions.trim());
  if (retrieves) {
    const names = project.files.filter((f) => !f.mediaType.startsWith("image/")).map((f) => f.name);
    parts.push(
      `The project's documents (${names.length}: ${names.join(", ")}) are too long to read whole here. Passages that match the user's message come with it as search results; use the project__search tool to look further, and cite the passages you use.`,
    );
    const images = project.files.filter((f) => f.mediaType.startsWith("image/")).map((f) => f.name);
    if (images.length) parts.push(`The project's images come at the start of the conversation: ${images.join(", ")}`);
    return parts.join("\n\n");
  }
  for (const f of project.files) if (f.text !== null && !sentWhole(f)) parts.push(`## ${f.name}\n\n${truncateBytes(f.text, maxBytes)}`);
  const others = project.files.filter((f) => sentWhole(f) || f.text === null).map((f) => `${f.name} (${f.mediaType})`);
  if (others.length) parts.push(`The project's images and documents come at the start of the conversation: ${others.join(", ")}`);
  return parts.join("\n\n");
}

/** A project's texts as the context budget counts them (none when the run retrieves instead). */
export const projectTexts = (project: RunProject | null, retrieves = false): ContextFile[] =>
  retrieves ? [] : (project?.files ?? []).flatMap((f) => (f.text !== null && !sentWhole(f) ? [{ path: `project/${f.name}`, content: f.text }] : []));

export function formatHistorySection(rows: Pick<Message, "role" | "content">[]): string {
  if (rows.length === 0) return "";
  return ["# Conversation History", ...rows.map((m) => `[${m.role}]: ${m.content}`)].join("\n\n");
}
