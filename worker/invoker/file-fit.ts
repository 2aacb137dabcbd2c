// What the Messages API takes of files: an image of at most 5 MB of base64 and 8000 px a side (2000 px
// once a request holds more than 20 images), at most 100 images, and 32 MB for the whole request. It
// refuses the whole request for one file past these, and a conversation's files go again with every
// later request: one such file would fail every run of the thread from then on. So a file past them
// never goes: a note in its place says why, the newest files kept first (the next answer is most
// likely about them).
import { fileName, filesOf, withNotes, type FileBlock } from "./file-notes";
import type { ApiMessage } from "./types";

const MiB = 1024 * 1024;
/** `files`: what the files of one request may come to, leaving the rest of 32 MB to the conversation. */
export const FILE_LIMITS = { imageBase64: 5 * MiB, side: 8000, many: 20, manySide: 2000, most: 100, files: 24 * MiB } as const;

/** The messages with every file the API would refuse replaced by a note saying why. */
export function fitFiles(messages: ApiMessage[]): ApiMessage[] {
  const files = filesOf(messages);
  if (files.length === 0) return messages;
  const notes = new Map<FileBlock, string>();
  fitImages(files, notes);
  let bytes = 0;
  for (const f of [...files].reverse()) {
    const size = f.source.data?.length ?? 0;
    if (notes.has(f)) continue;
    if (bytes + size > FILE_LIMITS.files) notes.set(f, `a request takes at most 32 MB, and newer files came first`);
    else bytes += size;
  }
  if (notes.size === 0) return messages;
  return withNotes(messages, (f) => (notes.has(f) ? `[${fileName(f)} was left out: ${notes.get(f)}.]` : undefined));
}

function fitImages(files: FileBlock[], notes: Map<FileBlock, string>): void {
  const images = files.filter((f) => f.type === "image" && f.source.type === "base64" && typeof f.source.data === "string").map((block) => ({ block, side: sideOf(block) }));
  for (const { block, side } of images) {
    const length = block.source.data!.length;
    if (length > FILE_LIMITS.imageBase64) notes.set(block, `it is ${mb(length)} MB encoded, past the model's 5 MB`);
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
