// Attachments in the conversation travel as references: blocks whose source is `attachment:<id>`
// (with the media type and size after it), which the thread turns into the bytes just before each
// request. The stored transcript stays small, and a file is sent the way its type needs. A file only
// code can read (a workbook, or data too long for the model to read whole) is a reference for the
// code's container alone: a container_upload whose file id is the reference.
import { XLSX_TYPE } from "../../protocol";
import type { ApiContent, ApiMessage } from "./types";

const SCHEME = "attachment:";

export interface AttachmentRef {
  id: string;
  mediaType: string;
  bytes: number;
  name: string;
}

/** Data past this (JSON, CSV) is for code to read: whole, it would take more than about 50,000 tokens. */
export const DATA_INLINE_BYTES = 200_000;
const DATA = new Set(["application/json", "text/csv", XLSX_TYPE]);

/** Whether only code reads the file: data too long to read whole (a workbook's text is extracted up to it). */
export const codeOnly = (a: { mediaType: string; bytes: number }) => DATA.has(a.mediaType) && a.bytes > DATA_INLINE_BYTES;

/** The block that stands for an attachment in a user turn (an image, a document with its name, or a file for code). */
export function refBlock(a: AttachmentRef): ApiContent {
  const url = `${SCHEME}${a.id}#${a.mediaType}#${a.bytes}`;
  if (codeOnly(a)) return codeRefBlock(a);
  return a.mediaType.startsWith("image/")
    ? { type: "image", source: { type: "url", url } }
    : { type: "document", source: { type: "url", url }, title: a.name };
}

/** The block that puts a file in the code's container alone (the model itself is told only its name). */
export const codeRefBlock = (a: Omit<AttachmentRef, "name">): ApiContent => ({ type: "container_upload", file_id: `${SCHEME}${a.id}#${a.mediaType}#${a.bytes}` });

/** The reference a block stands for, or null for an ordinary block; `forCode` when only code reads it. */
export function refOf(block: ApiContent): (Omit<AttachmentRef, "name"> & { forCode?: true }) | null {
  if (block.type === "container_upload") return block.file_id.startsWith(SCHEME) ? { ...parse(block.file_id), forCode: true } : null;
  if ((block.type !== "image" && block.type !== "document") || block.source.type !== "url" || !block.source.url.startsWith(SCHEME)) return null;
  return parse(block.source.url);
}

function parse(url: string): Omit<AttachmentRef, "name"> {
  const [id, mediaType, bytes] = url.slice(SCHEME.length).split("#");
  return { id, mediaType, bytes: Number(bytes) };
}

/** About what an image costs the model, at most (the API scales a larger one down to it). */
export const IMAGE_TOKENS = 1_600;

/** Rough tokens of an attachment: an image is about 1,600; a PDF about one per 30 bytes; text one per 4; a file for code, its note. */
export function refTokens(ref: Omit<AttachmentRef, "name"> & { forCode?: true }): number {
  if (ref.forCode) return 60;
  if (ref.mediaType.startsWith("image/")) return IMAGE_TOKENS;
  return Math.ceil(ref.bytes / (ref.mediaType === "application/pdf" ? 30 : 4));
}

/** Replaces every reference in `messages` with the blocks `load` makes of it. */
export async function expandRefs(
  messages: ApiMessage[],
  load: (ref: NonNullable<ReturnType<typeof refOf>>, block: ApiContent) => Promise<ApiContent | ApiContent[]>,
): Promise<ApiMessage[]> {
  const out: ApiMessage[] = [];
  for (const m of messages) {
    if (typeof m.content === "string" || !m.content.some((b) => refOf(b))) {
      out.push(m);
      continue;
    }
    const content: ApiContent[] = [];
    for (const block of m.content) {
      const ref = refOf(block);
      content.push(...(ref ? [await load(ref, block)].flat() : [block]));
    }
    out.push({ ...m, content });
  }
  return out;
}
