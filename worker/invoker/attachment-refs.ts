// Attachments in the conversation travel as references: blocks whose source is `attachment:<id>`
// (with the media type and size after it), which the thread turns into the bytes just before each
// request. The stored transcript stays small, and a file is sent the way its type needs. A file only
// code can read (a workbook, or data too long for the model to read whole) is a reference for the
// code's container alone: a container_upload whose file id is the reference. A document too long to
// read whole (past LONG_DOCUMENT_TOKENS) is a reference marked long: each request carries the
// passages of it that best match the question instead (thread/run/file-blocks.ts).
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

/** A document past this many tokens is read by retrieval (a quarter of a 200,000-token window). */
export const LONG_DOCUMENT_TOKENS = 50_000;
/** What a long document's retrieved passages take of a request, about. */
export const RETRIEVED_TOKENS = 2_000;

/** The block that stands for an attachment in a user turn (an image, a document with its name, or a file for code). */
export function refBlock(a: AttachmentRef): ApiContent {
  const url = `${SCHEME}${a.id}#${a.mediaType}#${a.bytes}`;
  if (codeOnly(a)) return codeRefBlock(a);
  if (a.mediaType.startsWith("image/")) return { type: "image", source: { type: "url", url } };
  return { type: "document", source: { type: "url", url: refTokens(a) > LONG_DOCUMENT_TOKENS ? `${url}#long` : url }, title: a.name };
}

/** The block that puts a file in the code's container alone (the model itself is told only its name). */
export const codeRefBlock = (a: Omit<AttachmentRef, "name">): ApiContent => ({ type: "container_upload", file_id: `${SCHEME}${a.id}#${a.mediaType}#${a.bytes}` });

/** A reference: `forCode` when only code reads it, `long` when the model reads its best passages. */
export type Ref = Omit<AttachmentRef, "name"> & { forCode?: true; long?: true };

/** The reference a block stands for, or null for an ordinary block. */
export function refOf(block: ApiContent): Ref | null {
  if (block.type === "container_upload") return block.file_id.startsWith(SCHEME) ? { ...parse(block.file_id), forCode: true } : null;
  if ((block.type !== "image" && block.type !== "document") || block.source.type !== "url" || !block.source.url.startsWith(SCHEME)) return null;
  return parse(block.source.url);
}

function parse(url: string): Ref {
  const [id, mediaType, bytes, mark] = url.slice(SCHEME.length).split("#");
  return { id, mediaType, bytes: Number(bytes), ...(mark === "long" ? { long: true as const } : {}) };
}

/** About what an image costs the model, at most (the API scales a larger one down to it). */
export const IMAGE_TOKENS = 1_600;

/** Rough tokens of an attachment: an image is about 1,600; a PDF about one per 30 bytes; text one per 4; a file for code, its note; a long one, its passages. */
export function refTokens(ref: Ref): number {
  if (ref.forCode) return 60;
  if (ref.long) return RETRIEVED_TOKENS;
  if (ref.mediaType.startsWith("image/")) return IMAGE_TOKENS;
  return Math.ceil(ref.bytes / (ref.mediaType === "application/pdf" ? 30 : 4));
}

/** Replaces every reference in `messages` with the blocks `load` makes of it. */
export async function expandRefs(
  messages: ApiMessage[],
  load: (ref: Ref, block: ApiContent) => Promise<ApiContent | ApiContent[]>,
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
