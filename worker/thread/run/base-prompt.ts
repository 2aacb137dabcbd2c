// Step 2 (the seed's assemblePrompt): the base prompt names the thread. The system prompt is laid out
// from the most stable text to the least, so that a change keeps the cached prefix before it: this
// base (the thread's id and kind, which never change), then what plugins append (guides, context
// files), and last, in a block of its own, what a person changes: the thread's name and instructions.
import type { Thread, ThreadKind } from "../../../protocol";
import type { StructuredPrompt } from "../../plugins/contract";

const KIND_INSTRUCTIONS: Record<ThreadKind, string> = {
  general: "You are a helpful assistant in a chat thread. Answer in Markdown.",
  primary: "This is the user's primary thread: the place they come back to. Answer in Markdown.",
  task: "This thread works on one delegated task; the thread that delegated it reads your result.",
  cron: "This thread runs on a schedule; no one may be reading as you answer.",
  api: "This thread is a program's conversation with you, through the app's API; its user may read it in the app later. Answer in Markdown unless told otherwise.",
};

export function basePrompt(thread: Pick<Thread, "id" | "kind">, content: string): StructuredPrompt {
  return { system: `[Thread: ${thread.id} (${thread.kind})]\n\n${KIND_INSTRUCTIONS[thread.kind]}`, prompt: content };
}

/** The last system block: the thread's name (titles rename a new thread) and its instructions. */
export function threadSection(thread: Pick<Thread, "name" | "instructions">): string {
  const parts = [`This thread is named "${thread.name}".`];
  if (thread.instructions.trim()) parts.push(`# Instructions for this thread\n\n${thread.instructions.trim()}`);
  return parts.join("\n\n");
}
