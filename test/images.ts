// Images by their headers, for tests of what the model is sent: a real signature and size, then
// filler to the length asked. Base64, as the Messages API takes them.
const bytes = (...parts: (number[] | Uint8Array)[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));
const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const le16 = (n: number) => [n & 255, (n >>> 8) & 255];
const le24 = (n: number) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255];

function base64(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

/** A PNG's signature and IHDR for `width`×`height`, then `filler` bytes. */
export const pngOf = (width: number, height: number, filler = 64) =>
  base64(bytes([0x89, ...ascii("PNG\r\n\x1a\n")], be32(13), ascii("IHDR"), be32(width), be32(height), [8, 2, 0, 0, 0], new Uint8Array(filler)));

export const gifOf = (width: number, height: number) => base64(bytes(ascii("GIF89a"), le16(width), le16(height), new Uint8Array(32)));

export const webpOf = (width: number, height: number) =>
  base64(bytes(ascii("RIFF"), [0, 0, 0, 0], ascii("WEBPVP8X"), [10, 0, 0, 0, 0, 0, 0, 0], le24(width - 1), le24(height - 1), new Uint8Array(32)));

/** A JPEG with an APP1 segment of `metadata` bytes before its frame header. */
export function jpegOf(width: number, height: number, metadata = 1_000): string {
  const app1 = [0xff, 0xe1, ((metadata + 2) >>> 8) & 255, (metadata + 2) & 255];
  const sof0 = [0xff, 0xc0, 0, 17, 8, (height >>> 8) & 255, height & 255, (width >>> 8) & 255, width & 255, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
  return base64(bytes([0xff, 0xd8], app1, new Uint8Array(metadata), sof0, new Uint8Array(64), [0xff, 0xd9]));
}

/** A whole 1×1 PNG (one that decodes), as bytes to upload. */
export const DOT_PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
