// The ZIP container of DOCX, XLSX and PPTX: its central directory read here (ZIP64 too), and only the
// parts asked for inflated, each in small steps, so a zip bomb is refused after at most one step past
// the bound instead of being inflated whole first.
import { UnprocessableError, type Budget } from "./budget";

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

export type ZipDirectory = Map<string, ZipEntry>;

/** Compressed bytes fed to the inflater at a time: at most about 1,032 times this comes out of one step (DEFLATE's greatest ratio). */
const STEP = 8 * 1024;

const u16 = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8);
const u32 = (b: Uint8Array, at: number) => (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
const u64 = (b: Uint8Array, at: number) => u32(b, at) + u32(b, at + 4) * 2 ** 32;

/** True when the bytes begin as a ZIP archive does (a local file header, or an empty archive's end record). */
export const isZip = (b: Uint8Array) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && ((b[2] === 3 && b[3] === 4) || (b[2] === 5 && b[3] === 6));

/** The archive's entries by name; `broken` makes the error for a damaged archive. */
export function readZip(bytes: Uint8Array, broken: (why: string) => UnprocessableError): ZipDirectory {
  if (!isZip(bytes)) throw broken("it is not a ZIP archive");
  // The end of central directory record: within the last 65,557 bytes (22 plus a comment of up to 65,535).
  let eocd = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 65_557); at--) {
    if (bytes[at] === 0x50 && bytes[at + 1] === 0x4b && bytes[at + 2] === 5 && bytes[at + 3] === 6) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw broken("the archive is truncated (its directory is missing)");
  let entries = u16(bytes, eocd + 10);
  let cdOffset = u32(bytes, eocd + 16);
  // ZIP64: the locator just before the record points at the ZIP64 end record.
  if ((entries === 0xffff || cdOffset === 0xffffffff) && eocd >= 20 && u32(bytes, eocd - 20) === 0x07064b50) {
    const z64 = u64(bytes, eocd - 12);
    if (z64 + 56 > bytes.length || u32(bytes, z64) !== 0x06064b50) throw broken("its ZIP64 directory is damaged");
    entries = u64(bytes, z64 + 32);
    cdOffset = u64(bytes, z64 + 48);
  }
  const out: ZipDirectory = new Map();
  let at = cdOffset;
  const utf8 = new TextDecoder();
  for (let i = 0; i < entries; i++) {
    if (at + 46 > bytes.length || u32(bytes, at) !== 0x02014b50) throw broken("its directory is damaged or truncated");
    const nameLength = u16(bytes, at + 28);
    const extraLength = u16(bytes, at + 30);
    const commentLength = u16(bytes, at + 32);
    if (at + 46 + nameLength + extraLength > bytes.length) throw broken("its directory is truncated");
    const entry: ZipEntry = {
      name: utf8.decode(bytes.subarray(at + 46, at + 46 + nameLength)),
      flags: u16(bytes, at + 8),
      method: u16(bytes, at + 10),
      compressedSize: u32(bytes, at + 20),
      size: u32(bytes, at + 24),
      localOffset: u32(bytes, at + 42),
    };
    if (entry.size === 0xffffffff || entry.compressedSize === 0xffffffff || entry.localOffset === 0xffffffff) {
      readZip64Extra(bytes.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength), entry);
    }
    out.set(entry.name.replace(/^\/+/, ""), entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return out;
}

/** The ZIP64 extended information field (0x0001): the 64-bit values stand in the order of the ones set to all ones. */
function readZip64Extra(extra: Uint8Array, entry: ZipEntry): void {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = u16(extra, at);
    const length = u16(extra, at + 2);
    if (id === 1) {
      let p = at + 4;
      const next = () => {
        const v = p + 8 <= at + 4 + length ? u64(extra, p) : NaN;
        p += 8;
        return v;
      };
      if (entry.size === 0xffffffff) entry.size = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localOffset === 0xffffffff) entry.localOffset = next();
      return;
    }
    at += 4 + length;
  }
}

/**
 * The entry's bytes, inflated within the budget (its declared size counts against maxInflatedBytes).
 * workerd's own DecompressionStream inflates (about five times fflate's speed), fed a step at a time
 * while its output is read: an entry that inflates past the size its directory declares is refused at
 * the first step past it, as its directory lies (a zip bomb, or damage).
 */
export async function inflateEntry(bytes: Uint8Array, entry: ZipEntry, budget: Budget, broken: (why: string) => UnprocessableError): Promise<Uint8Array> {
  const at = entry.localOffset;
  if (!(at + 30 <= bytes.length) || u32(bytes, at) !== 0x04034b50) throw broken(`its part ${entry.name} is damaged or truncated`);
  if (entry.flags & 1) throw broken("it is encrypted (password-protected)");
  const start = at + 30 + u16(bytes, at + 26) + u16(bytes, at + 28);
  const end = start + entry.compressedSize;
  if (!Number.isFinite(end) || end > bytes.length) throw broken(`the archive is truncated (its part ${entry.name} is cut short)`);
  if (!Number.isFinite(entry.size)) throw broken(`its part ${entry.name} is damaged`);
  const data = bytes.subarray(start, end);
  budget.addInflated(entry.size);
  if (entry.method === 0) {
    if (data.length !== entry.size) throw broken(`its part ${entry.name} is damaged`);
    return data;
  }
  if (entry.method !== 8) throw broken(`its part ${entry.name} uses a compression method (${entry.method}) that is not supported`);

  const out = new Uint8Array(entry.size);
  let filled = 0;
  const inflater = new DecompressionStream("deflate-raw");
  const writer = inflater.writable.getWriter();
  const reader = inflater.readable.getReader();
  const feeding = (async () => {
    for (let p = 0; p < data.length; p += STEP) await writer.write(data.subarray(p, p + STEP));
    await writer.close();
  })();
  feeding.catch(() => {});
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (filled + value.length > out.length) {
        reader.cancel().catch(() => {});
        writer.abort().catch(() => {});
        throw broken(`its part ${entry.name} unpacks to more than its directory says (a damaged archive or a zip bomb)`);
      }
      out.set(value, filled);
      filled += value.length;
    }
    await feeding;
  } catch (err) {
    if (err instanceof UnprocessableError) throw err;
    throw broken(`its part ${entry.name} is damaged (${err instanceof Error ? err.message : String(err)})`);
  }
  if (filled !== entry.size) throw broken(`its part ${entry.name} is damaged or truncated`);
  return out;
}

/** The entry's text (UTF-8; a UTF-16LE part with its byte order mark is read too). */
export async function entryText(bytes: Uint8Array, entry: ZipEntry, budget: Budget, broken: (why: string) => UnprocessableError): Promise<string> {
  const data = await inflateEntry(bytes, entry, budget, broken);
  if (data[0] === 0xff && data[1] === 0xfe) return new TextDecoder("utf-16le").decode(data);
  return new TextDecoder().decode(data);
}

/** A part path as a relationship's Target gives it, resolved against the folder of the part that names it. */
export function resolvePart(fromFolder: string, target: string): string {
  if (target.startsWith("/")) return target.slice(1);
  const parts = fromFolder ? fromFolder.split("/") : [];
  for (const piece of target.split("/")) {
    if (piece === "..") parts.pop();
    else if (piece !== "." && piece !== "") parts.push(piece);
  }
  return parts.join("/");
}
