// What the Messages API takes of images: at most 5 MB of base64 each, at most 8000 px a side (2000 px
// once a request holds more than 20 images), at most 100 in a request. It refuses the whole request
// for one image past these, and a conversation's images go again with every later request: one such
// image would fail every run of the thread from then on. So an image past them never goes: a text
// block in its place says why, the newest images kept first.
import type { ApiContent, ApiMessage } from "./types";

export const IMAGE_LIMITS = { base64: 5 * 1024 * 1024, side: 8000, many: 20, manySide: 2000, most: 100 } as const;

type Block = { type: string; source?: { type: string; data?: string } };
type Spot = { block: Block; side: number | null; note?: string };

/** The messages with every image the API would refuse replaced by a text block saying why. */
export function fitImages(messages: ApiMessage[]): ApiMessage[] {
  const spots = imagesOf(messages);
  if (spots.length === 0) return messages;
  for (const s of spots) {
    const data = s.block.source!.data!;
    if (data.length > IMAGE_LIMITS.base64) s.note = `it is ${mb(data.length)} MB encoded, past the model's 5 MB`;
    else if ((s.side ?? 0) > IMAGE_LIMITS.side) s.note = `it is ${s.side} pixels on a side, past the model's ${IMAGE_LIMITS.side}`;
  }
  let kept = spots.filter((s) => !s.note);
  // Oldest first: the conversation's newest images are the ones the next answer is most likely about.
  for (const s of kept.slice(0, Math.max(0, kept.length - IMAGE_LIMITS.most))) s.note = `a request takes at most ${IMAGE_LIMITS.most} images`;
  kept = kept.filter((s) => !s.note);
  let count = kept.length;
  for (const s of kept) {
    if (count <= IMAGE_LIMITS.many) break;
    if ((s.side ?? 0) <= IMAGE_LIMITS.manySide) continue;
    s.note = `past ${IMAGE_LIMITS.many} images a request takes only those of at most ${IMAGE_LIMITS.manySide} pixels a side`;
    count--;
  }
  const notes = new Map(spots.filter((s) => s.note).map((s) => [s.block, s.note!]));
  if (notes.size === 0) return messages;
  const swap = (b: ApiContent): ApiContent => (notes.has(b as Block) ? { type: "text", text: `[An image was left out: ${notes.get(b as Block)}.]` } : b);
  return messages.map((m) => {
    if (typeof m.content === "string" || !m.content.some((b) => notes.has(b as Block) || isResultWith(b, notes))) return m;
    return {
      ...m,
      content: m.content.map((b) => (b.type === "tool_result" && Array.isArray(b.content) ? { ...b, content: b.content.map((c) => swap(c as ApiContent)) as typeof b.content } : swap(b))),
    };
  });
}

function isResultWith(b: ApiContent, notes: Map<Block, string>): boolean {
  return b.type === "tool_result" && Array.isArray(b.content) && b.content.some((c) => notes.has(c as Block));
}

/** Every base64 image, top-level or in a tool's result, in the conversation's order. */
function imagesOf(messages: ApiMessage[]): Spot[] {
  const spots: Spot[] = [];
  const visit = (b: Block) => {
    if (b.type === "image" && b.source?.type === "base64" && typeof b.source.data === "string") spots.push({ block: b, side: imageSide(b.source.data) });
  };
  for (const m of messages) {
    if (typeof m.content === "string") continue;
    for (const b of m.content) {
      if (b.type === "tool_result" && Array.isArray(b.content)) b.content.forEach((c) => visit(c as Block));
      else visit(b as Block);
    }
  }
  return spots;
}

const mb = (n: number) => (n / (1024 * 1024)).toFixed(1);

/** An image's longer side in pixels, from its header (PNG, GIF, WebP, JPEG); null when it cannot tell. */
export function imageSide(base64: string): number | null {
  const size = imageSize(decodeHead(base64, 64));
  if (size !== "jpeg") return size;
  // A JPEG's size is in its frame header, after whatever metadata comes first (EXIF is at most 64 KB).
  const frame = jpegSize(decodeHead(base64, 96 * 1024)) ?? jpegSize(decodeHead(base64, 512 * 1024));
  return frame;
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
