// The figures docs/toolchain.md records ("Document extraction"): time to extract a ~1 MB DOCX, a ~1 MB
// XLSX and a 40-page PDF inside workerd. The test pool's workerd advances its clock during computation
// (production's freezes it until the next I/O), so these wall-clock times are the CPU the extraction
// takes on this machine. Printed; the bounds asserted are loose (a regression by an order of magnitude).
import { describe, expect, it } from "vitest";
import { extract } from "../../worker/lib/extract";
import { docx, prose, xlsx, type DocBlock } from "./ooxml-builder";
import { numberedPdf } from "./pdf-fixture";

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; out: T }> {
  const start = performance.now();
  const out = await run();
  return { ms: Math.round(performance.now() - start), out };
}

/** A DOCX of about `bytes` (compressed): headed sections of prose paragraphs and a table each. */
export function largeDocx(bytes: number): Uint8Array {
  const blocks: DocBlock[] = [];
  for (let i = 0; blocks.length < bytes / 90; i++) {
    blocks.push({ heading: `Section ${i + 1}`, level: 1 + (i % 3) });
    for (let p = 0; p < 8; p++) blocks.push({ p: prose(60, i * 8 + p + 1) });
    blocks.push({ table: [["Item", "Count", "Note"], ...Array.from({ length: 4 }, (_, r) => [`item ${r}`, String(r * i), prose(5, r + i)])] });
  }
  return docx(blocks);
}

describe("figures", () => {
  it("a ~1 MB DOCX", async () => {
    const bytes = largeDocx(1024 * 1024);
    const first = await timed(() => extract("application/vnd.openxmlformats-officedocument.wordprocessingml.document", bytes));
    const again = await timed(() => extract("application/vnd.openxmlformats-officedocument.wordprocessingml.document", bytes));
    const chars = again.out.sections.reduce((n, s) => n + s.text.length, 0);
    console.log(`FIGURE docx ${(bytes.length / 1024).toFixed(0)} KiB, ${again.out.sections.length} sections, ${chars} chars: first ${first.ms} ms, again ${again.ms} ms`);
    expect(bytes.length).toBeGreaterThan(700 * 1024);
    expect(again.ms).toBeLessThan(10_000);
  });

  it("a ~1 MB XLSX", async () => {
    const rows = Array.from({ length: 20_000 }, (_, r) => [`row ${r + 1}`, r * 3, prose(4, r + 1), (r % 97) / 7]);
    const bytes = xlsx([{ name: "Data", rows: [["Name", "Count", "Words", "Ratio"], ...rows] }]);
    const first = await timed(() => extract("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", bytes));
    const again = await timed(() => extract("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", bytes));
    console.log(`FIGURE xlsx ${(bytes.length / 1024).toFixed(0)} KiB, 20,001 rows, ${again.out.sections.length} sections: first ${first.ms} ms, again ${again.ms} ms`);
    expect(again.ms).toBeLessThan(10_000);
  });

  it("a 40-page PDF", async () => {
    const bytes = numberedPdf(40);
    const first = await timed(() => extract("application/pdf", bytes));
    const again = await timed(() => extract("application/pdf", bytes));
    console.log(`FIGURE pdf 40 pages (${(bytes.length / 1024).toFixed(0)} KiB): first (pdf.js loaded) ${first.ms} ms, again ${again.ms} ms`);
    expect(again.out.pages).toBe(40);
    expect(again.ms).toBeLessThan(10_000);
  });
});
