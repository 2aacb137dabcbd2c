// The images and documents of a conversation as the Messages API gets them, top-level or in a tool's
// result, and the conversation with some of them replaced by a text note saying why they are not
// there. For the files the API would refuse (file-fit.ts), and those it did (refused-files.ts).
import type { ApiContent, ApiMessage } from "./types";

export type FileBlock = { type: "image" | "document"; source: { type: string; media_type?: string; data?: string; url?: string }; title?: string | null };

export const isFile = (b: { type: string }): b is FileBlock => (b.type === "image" || b.type === "document") && "source" in b;

/** Every image and document, in the conversation's order. */
export function filesOf(messages: ApiMessage[]): FileBlock[] {
  const out: FileBlock[] = [];
  for (const m of messages) {
    if (typeof m.content === "string") continue;
    for (const b of m.content) {
      const inner = b.type === "tool_result" && Array.isArray(b.content) ? b.content : [b];
      for (const c of inner) if (isFile(c)) out.push(c);
    }
  }
  return out;
}

/** The messages with each file that `noteOf` has a note for replaced by it; the same array when none. */
export function withNotes(messages: ApiMessage[], noteOf: (file: FileBlock) => string | undefined): ApiMessage[] {
  let changed = false;
  const swap = (b: ApiContent): ApiContent => {
    const note = isFile(b) ? noteOf(b) : undefined;
    if (note === undefined) return b;
    changed = true;
    return { type: "text", text: note };
  };
  const out = messages.map((m) =>
    typeof m.content === "string"
      ? m
      : { ...m, content: m.content.map((b) => (b.type === "tool_result" && Array.isArray(b.content) ? { ...b, content: b.content.map((c) => swap(c as ApiContent)) as typeof b.content } : swap(b))) },
  );
  return changed ? out : messages;
}

/** "An image", or "A document (its title)": what a note says was left out. */
export const fileName = (b: FileBlock) => (b.type === "image" ? "An image" : `A document${b.title ? ` (${b.title})` : ""}`);
