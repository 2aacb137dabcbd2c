// What the Messages API takes of files: an image of at most 5 MB of base64 and 8000 px a side (2000 px
// once a request holds more than 20 images), at most 100 images, and 32 MB for the whole request. It
// refuses the whole request for one file past these, and a conversation's files go again with every
// later request: one such file would fail every run of the thread from then on. So a file past them
// never goes: a note in its place says why, the newest files kept first (the next answer is most
// likely about them). The same fit is made first on the attachments' references, by their stored
// sizes, so the bytes of a file that would not go are never read.
import { refOf, type AttachmentRef } from "./attachment-refs";
import { fileName, filesOf, withNotes, type FileBlock } from "./file-notes";
import type { ApiContent, ApiMessage } from "./types";

const MiB = 1024 * 1024;
/** `files`: what the files of one request may come to, leaving the rest of 32 MB to the conversation. */
export const FILE_LIMITS = { imageBase64: 5 * MiB, side: 8000, many: 20, manySide: 2000, most: 100, files: 24 * MiB } as const;

/** The messages with every file the API would refuse replaced by a note saying why. */
export function fitFiles(messages: ApiMessage[]): ApiMessage[] {
  const files = filesOf(messages);
  if (files.length === 0) return messages;
  const notes = new Map<FileBlock, string>();
  fitImages(files, notes);
  fitTotal(files, (f) => f.source.data?.length ?? 0, notes);
  return notes.size === 0 ? messages : withNotes(messages, (f) => noteText(f, notes));
}

/**
 * Before any file's bytes are read: the attachments' references the API would refuse for their size
 * (an image past 5 MB of base64, files past 24 MiB, newest first) replaced by the notes fitFiles would
 * write, by the sizes stored with them. Base64 takes 4/3 of the bytes, so a reference's size is what it
 * will take; files already read (a tool's) count as they are. What is left is read and sent (less an
 * image fitFiles then finds too wide, which only the bytes tell).
 */
export function fitRefs(messages: ApiMessage[]): ApiMessage[] {
  const files = filesOf(messages);
  const refs = new Map<FileBlock, Omit<AttachmentRef, "name">>();
  for (const f of files) {
    const ref = refOf(f as ApiContent);
    // A long document goes as its passages, never whole: it takes nothing of the files' room.
    if (ref?.long) continue;
    if (ref) refs.set(f, ref);
  }
  if (refs.size === 0) return messages;
  const sizeOf = (f: FileBlock) => (refs.has(f) ? sentSize(refs.get(f)!) : (f.source.data?.length ?? 0));
  const notes = new Map<FileBlock, string>();
  for (const f of files) {
    if (f.type === "image" && sizeOf(f) > FILE_LIMITS.imageBase64) notes.set(f, tooLarge(sizeOf(f)));
  }
  fitTotal(files, sizeOf, notes);
  // Files already read are fitFiles' to leave out, with what only their bytes tell.
  return withNotes(messages, (f) => (refs.has(f) ? noteText(f, notes) : undefined));
}

/** What a referenced file takes of a request: base64 for an image or a PDF, its text for a text file. */
function sentSize(ref: Omit<AttachmentRef, "name">): number {
  const bytes = Number.isFinite(ref.bytes) ? ref.bytes : 0;
  return ref.mediaType.startsWith("image/") || ref.mediaType === "application/pdf" ? Math.ceil(bytes / 3) * 4 : bytes;
}

/** Notes for the files past FILE_LIMITS.files, the newest kept first; a file already noted takes nothing. */
function fitTotal(files: FileBlock[], sizeOf: (f: FileBlock) => number, notes: Map<FileBlock, string>): void {
  let bytes = 0;
  for (const f of [...files].reverse()) {
    if (notes.has(f)) continue;
    const size = sizeOf(f);
    if (bytes + size > FILE_LIMITS.files) notes.set(f, `a request takes at most 32 MB, and newer files came first`);
    else bytes += size;
  }
}

const noteText = (f: FileBlock, notes: Map<FileBlock, string>) => (notes.has(f) ? `[${fileName(f)} was left out: ${notes.get(f)}.]` : undefined);
const tooLarge = (length: number) => `it is ${mb(length)} MB encoded, past the model's 5 MB`;

function fitImages(files: FileBlock[], notes: Map<FileBlock, string>): void {
  const images = files.filter((f) => f.type === "image" && f.source.type === "base64" && typeof f.source.data === "string").map((block) => ({ block, side: sideOf(block) }));
  for (const { block, side } of images) {
    const length = block.source.data!.length;
    if (length > FILE_LIMITS.imageBase64) notes.set(block, tooLarge(length));
    else if ((side ?? 0) > FILE_LIMITS.side) notes.set(block, `it is ${side} pixels on a side, past the model's ${FILE_LIMITS.side}`);
  }
  let kept = images.filter((i) => !notes.has(i.block));
  for (const { block } of kept.slice(0, Math.max(0, kept.length - FILE_LIMITS.most))) notes.set(block, `a request takes at most ${FILE_LIMITS.most} images`);
  kept = kept.filter((i) => !notes.has(i.block));
  let count = kept.length;
  for (const { block, side } of kept) {
    if (count <= FILE_LIMITS.many) break;
    if ((side ?? 0) <= FILE_LIMITS.manySide) continue;
    notes.set(block, `past ${FILE_LIMITS.many} images a request takes only those of at most ${FILE_LIMITS.manySide} pixels a side`);
    count--;
  }
}

const mb = (n: number) => (n / MiB).toFixed(1);

/**
 * Sides read once per block: a thread's blocks are the same objects from one request to the next (its
 * files' blocks are cached, its turns held), and a JPEG's size can be deep in its data.
 */
const sides = new WeakMap<object, number | null>();
function sideOf(block: FileBlock): number | null {
  if (!sides.has(block.source)) sides.set(block.source, imageSide(block.source.data!));
  return sides.get(block.source)!;
}

/** An image's longer side in pixels, from its header (PNG, GIF, WebP, JPEG); null when it cannot tell. */
export function imageSide(base64: string): number | null {
  const size = imageSize(decodeHead(base64, 64));
  if (size !== "jpeg") return size;
  // A JPEG's size is in its frame header, after whatever metadata comes first (EXIF is at most 64 KB).
  return jpegSize(decodeHead(base64, 96 * 1024)) ?? jpegSize(decodeHead(base64, 512 * 1024));
}

function decodeHead(base64: string, chars: number): Uint8Array {
  const head = base64.slice(0, Math.min(base64.length, chars) & ~3);
  try {
    return Uint8Array.from(atob(head), (c) => c.charCodeAt(0));
  } catch {
    return new Uint8Array();
  }
}

const at = (b: Uint8Array, i: number, s: string) => [...s].every((c, k) => b[i + k] === c.charCodeAt(0));
const be16 = (b: Uint8Array, i: number) => (b[i] << 8) | b[i + 1];
const le16 = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8);
const le24 = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8) | (b[i + 2] << 16);

function imageSize(b: Uint8Array): number | null | "jpeg" {
  if (b.length >= 24 && b[0] === 0x89 && at(b, 1, "PNG") && at(b, 12, "IHDR")) {
    return Math.max(new DataView(b.buffer).getUint32(16), new DataView(b.buffer).getUint32(20));
  }
  if (b.length >= 10 && at(b, 0, "GIF8")) return Math.max(le16(b, 6), le16(b, 8));
  if (b.length >= 30 && at(b, 0, "RIFF") && at(b, 8, "WEBP")) {
    if (at(b, 12, "VP8X")) return Math.max(le24(b, 24) + 1, le24(b, 27) + 1);
    if (at(b, 12, "VP8L")) {
      const bits = b[21] | (b[22] << 8) | (b[23] << 16) | (b[24] << 24);
      return Math.max((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1);
    }
    if (at(b, 12, "VP8 ")) return Math.max(le16(b, 26) & 0x3fff, le16(b, 28) & 0x3fff);
    return null;
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8) return "jpeg";
  return null;
}

/** The longer side in a JPEG's start-of-frame marker, walking its segments; null when not within `b`. */
function jpegSize(b: Uint8Array): number | null {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return Math.max(be16(b, i + 5), be16(b, i + 7));
    i += 2 + be16(b, i + 2);
  }
  return null;
}
