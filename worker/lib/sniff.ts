// What uploaded bytes are, from their first bytes: a file must be what its Content-Type says.
import type { AttachmentType } from "../../protocol";
import { isZip } from "./extract/zip";

const startsWith = (b: Uint8Array, sig: number[], at = 0) => sig.every((v, i) => b[at + i] === v);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

const IMAGE_SIGNATURES: Record<string, (b: Uint8Array) => boolean> = {
  "image/png": (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  "image/jpeg": (b) => startsWith(b, [0xff, 0xd8, 0xff]),
  "image/gif": (b) => startsWith(b, ascii("GIF87a")) || startsWith(b, ascii("GIF89a")),
  "image/webp": (b) => startsWith(b, ascii("RIFF")) && startsWith(b, ascii("WEBP"), 8),
  "application/pdf": (b) => startsWith(b, ascii("%PDF-")),
  // Office documents are ZIP archives (a local file header first).
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": (b) => isZip(b),
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": (b) => isZip(b),
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": (b) => isZip(b),
  "application/json": (b) => isJson(b),
};

/** Text is valid UTF-8 without NUL bytes (a binary file renamed .txt is not). */
export function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function isJson(bytes: Uint8Array): boolean {
  if (!isText(bytes)) return false;
  try {
    JSON.parse(new TextDecoder().decode(bytes));
    return true;
  } catch {
    return false;
  }
}

export function matchesType(type: AttachmentType, bytes: Uint8Array): boolean {
  const signature = IMAGE_SIGNATURES[type];
  return signature ? signature(bytes) : isText(bytes);
}
