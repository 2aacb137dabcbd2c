// Files for the browser tests: a real PNG made here, files dropped on the page with a real
// DataTransfer, and a download read back.
import { deflateSync } from "node:zlib";

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "ascii");
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** A `width`×`height` RGB PNG whose pixel at (x, y) is `color(x, y)`: [r, g, b]. */
function png(width, height, color) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter, no interlace
  const rows = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    const row = y * (1 + width * 3);
    for (let x = 0; x < width; x++) rows.set(color(x, y), row + 1 + x * 3);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
}

/** A diagonal gradient, so a thumbnail visibly shows it. */
export const gradientPng = (width = 96, height = 64) => png(width, height, (x, y) => [Math.round((255 * x) / width), 90 + Math.round((120 * y) / height), 200]);

/** A bar chart of `values` (0..1) on white with an axis, as a plotting library would draw one. */
export function barChartPng(values, width = 480, height = 280) {
  const margin = 30;
  const slot = (width - 2 * margin) / values.length;
  return png(width, height, (x, y) => {
    if ((x === margin && y >= margin && y <= height - margin) || (y === height - margin && x >= margin && x <= width - margin)) return [40, 40, 40];
    const i = Math.floor((x - margin) / slot);
    const inBar = i >= 0 && i < values.length && x - margin - i * slot > slot * 0.2 && x - margin - i * slot < slot * 0.8;
    const top = height - margin - values[i] * (height - 2 * margin);
    return inBar && y >= top && y < height - margin ? [31, 119, 180] : [255, 255, 255];
  });
}

/**
 * Drags files over `selector` and drops them there, as the browser does: one DataTransfer holding
 * real File objects, through dragenter, dragover and drop. `hold` (async) runs while they hover.
 */
export async function dropFiles(page, selector, files, hold) {
  const payload = files.map((f) => ({ name: f.name, type: f.type, base64: Buffer.from(f.bytes).toString("base64") }));
  const transfer = await page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
    return dt;
  }, payload);
  const target = page.locator(selector);
  await target.dispatchEvent("dragenter", { dataTransfer: transfer });
  await target.dispatchEvent("dragover", { dataTransfer: transfer });
  if (hold) await hold();
  await target.dispatchEvent("drop", { dataTransfer: transfer });
  await transfer.dispose();
}

/** The text of a download that `action` starts. */
export async function downloadedText(page, action) {
  const [download] = await Promise.all([page.waitForEvent("download"), action()]);
  const stream = await download.createReadStream();
  const chunks = [];
  for await (const c of stream) chunks.push(c);
  return { name: download.suggestedFilename(), text: Buffer.concat(chunks).toString("utf8") };
}
