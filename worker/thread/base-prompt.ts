// Step 2 (the seed's assemblePrompt): the base prompt names the thread. Its system part is the most
// stable text of every request (the header and the kind's instruction, then the thread's own
// instructions), so plugins append after it and a new turn changes only the end of the request.
import type { Thread, ThreadKind } from "../../protocol";
import type { StructuredPrompt } from "../plugins/contract";

const KIND_INSTRUCTIONS: Record<ThreadKind, string> = {
  general: "You are a helpful assistant in a chat thread. Answer in Markdown.",
  primary: "This is the user's primary thread: the place they come back to. Answer in Markdown.",
  task: "This thread works on one delegated task; the thread that delegated it reads your result.",
  cron: "This thread runs on a schedule; no one may be reading as you answer.",
};

export function basePrompt(thread: Pick<Thread, "id" | "name" | "kind" | "instructions">, content: string): StructuredPrompt {
  const parts = [`[Thread: ${thread.id} | ${thread.name} (${thread.kind})]`, KIND_INSTRUCTIONS[thread.kind]];
  if (thread.instructions.trim()) parts.push(`# Instructions for this thread\n\n${thread.instructions.trim()}`);
  return { system: parts.join("\n\n"), prompt: content };
}
