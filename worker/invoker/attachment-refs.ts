// Attachments in the conversation travel as references: blocks whose source is `attachment:<id>`
// (with the media type and size after it), which the thread turns into the bytes just before each
// request. The stored transcript stays small, and a file is sent the way its type needs.
import type { ApiContent, ApiMessage } from "./types";

const SCHEME = "attachment:";

export interface AttachmentRef {
  id: string;
  mediaType: string;
  bytes: number;
  name: string;
}

/** The block that stands for an attachment in a user turn (an image, or a document with its name). */
export function refBlock(a: AttachmentRef): ApiContent {
  const url = `${SCHEME}${a.id}#${a.mediaType}#${a.bytes}`;
  return a.mediaType.startsWith("image/")
    ? { type: "image", source: { type: "url", url } }
    : { type: "document", source: { type: "url", url }, title: a.name };
}

/** The reference a block stands for, or null for an ordinary block. */
export function refOf(block: ApiContent): Omit<AttachmentRef, "name"> | null {
  if ((block.type !== "image" && block.type !== "document") || block.source.type !== "url" || !block.source.url.startsWith(SCHEME)) return null;
  const [id, mediaType, bytes] = block.source.url.slice(SCHEME.length).split("#");
  return { id, mediaType, bytes: Number(bytes) };
}

/** About what an image costs the model, at most (the API scales a larger one down to it). */
export const IMAGE_TOKENS = 1_600;

/** Rough tokens of an attachment: an image is about 1,600; a PDF about one per 30 bytes; text one per 4. */
export function refTokens(ref: Omit<AttachmentRef, "name">): number {
  if (ref.mediaType.startsWith("image/")) return IMAGE_TOKENS;
  return Math.ceil(ref.bytes / (ref.mediaType === "application/pdf" ? 30 : 4));
}

/** Replaces every reference in `messages` with the block `load` makes of it. */
export async function expandRefs(messages: ApiMessage[], load: (ref: Omit<AttachmentRef, "name">, block: ApiContent) => Promise<ApiContent>): Promise<ApiMessage[]> {
  const out: ApiMessage[] = [];
  for (const m of messages) {
    if (typeof m.content === "string" || !m.content.some((b) => refOf(b))) {
      out.push(m);
      continue;
    }
    const content: ApiContent[] = [];
    for (const block of m.content) {
      const ref = refOf(block);
      content.push(ref ? await load(ref, block) : block);
    }
    out.push({ ...m, content });
  }
  return out;
}
