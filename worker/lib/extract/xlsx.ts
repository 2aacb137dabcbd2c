// XLSX: each sheet of xl/workbook.xml, in its order, as sections of a few rows each at `{ sheet, row }`.
// Cells are shared strings, inline strings, numbers (as stored: a date stays its serial number),
// booleans (TRUE/FALSE), errors (#DIV/0!) and formulas' cached values. A row's cells stand in their
// columns from the sheet's first used column, so rows line up under their header.
import type { Budget } from "./budget";
import { OoxmlPackage } from "./ooxml";
import { RowSections } from "./rows";
import type { Extracted, Section } from "./types";
import { attr, scanXml } from "./xml";

/** Empty cells are kept as such up to this column (so rows line up); past it a row's cells simply follow each other. */
const MAX_ALIGNED_COLUMNS = 256;

/** "A" → 0, "Z" → 25, "AA" → 26; -1 when there are no letters. */
export function columnIndex(ref: string): number {
  let n = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i) | 0x20;
    if (c < 0x61 || c > 0x7a) break;
    n = n * 26 + (c - 0x60);
  }
  return i === 0 ? -1 : n - 1;
}

/** xl/sharedStrings.xml: each <si>'s text (its runs together, phonetic runs left out). */
export function sharedStrings(xml: string | null): string[] {
  const out: string[] = [];
  if (!xml) return out;
  let parts: string[] | null = null;
  let inT = false;
  let phonetic = 0;
  scanXml(xml, {
    open(tag, _attrs, selfClosing) {
      if (tag === "si") parts = selfClosing ? null : [];
      else if (tag === "rPh") phonetic++;
      else if (tag === "t") inT = !selfClosing;
      if (tag === "si" && selfClosing) out.push("");
    },
    close(tag) {
      if (tag === "si" && parts) {
        out.push(parts.join(""));
        parts = null;
      } else if (tag === "rPh") phonetic--;
      else if (tag === "t") inT = false;
    },
    text(s) {
      if (inT && parts && phonetic === 0) parts.push(s);
    },
  });
  return out;
}

interface SheetRef {
  name: string;
  part: string | null;
}

export async function extractXlsx(bytes: Uint8Array, budget: Budget): Promise<Extracted> {
  const pkg = new OoxmlPackage(bytes, budget);
  const workbook = await pkg.mainPart("xl/workbook.xml");
  if (!pkg.has(workbook)) throw pkg.broken("it has no xl/workbook.xml, so it is not a workbook");
  const rels = await pkg.relationships(workbook);
  const sheets: SheetRef[] = [];
  scanXml(await pkg.text(workbook), {
    open(tag, attrs) {
      if (tag !== "sheet") return;
      const rel = rels.get(attr(attrs, "r:id") ?? "");
      sheets.push({ name: attr(attrs, "name") ?? `Sheet${sheets.length + 1}`, part: rel && rel.type === "worksheet" && pkg.has(rel.target) ? rel.target : null });
    },
  });
  const stringsPart = [...rels.values()].find((r) => r.type === "sharedStrings")?.target ?? "xl/sharedStrings.xml";
  const strings = sharedStrings(await pkg.optionalText(stringsPart));
  const sections: Section[] = [];
  for (const sheet of sheets) {
    await budget.checkpoint();
    if (sheet.part) readSheet(await pkg.text(sheet.part), new RowSections(sheet.name, sections, budget), strings, budget);
  }
  return { sections, sheets: sheets.length };
}

/** A worksheet's rows into `out`. */
function readSheet(xml: string, out: RowSections, strings: string[], budget: Budget): void {
  let firstColumn = 0;
  let rowNumber = 0;
  let cells: string[] = [];
  let column = -1;
  let type: string | undefined;
  let value = "";
  let inline: string[] = [];
  let capture: "v" | "t" | null = null;
  let inInline = false;
  let phonetic = 0;
  let rowsRead = 0;
  scanXml(xml, {
    open(tag, attrs, selfClosing) {
      switch (tag) {
        case "dimension": {
          const from = columnIndex(attr(attrs, "ref") ?? "");
          if (from > 0 && from < MAX_ALIGNED_COLUMNS) firstColumn = from;
          break;
        }
        case "row": {
          const r = Number(attr(attrs, "r"));
          rowNumber = Number.isInteger(r) && r > 0 ? r : rowNumber + 1;
          cells = [];
          column = firstColumn - 1;
          break;
        }
        case "c": {
          const ref = columnIndex(attr(attrs, "r") ?? "");
          column = ref >= 0 ? ref : column + 1;
          type = attr(attrs, "t");
          value = "";
          inline = [];
          break;
        }
        case "v":
          capture = selfClosing ? null : "v";
          break;
        case "is":
          inInline = !selfClosing;
          break;
        case "rPh":
          if (!selfClosing) phonetic++;
          break;
        case "t":
          capture = inInline && !selfClosing ? "t" : capture;
          break;
      }
    },
    close(tag) {
      switch (tag) {
        case "v":
        case "t":
          capture = null;
          break;
        case "is":
          inInline = false;
          break;
        case "rPh":
          if (phonetic) phonetic--;
          break;
        case "c": {
          const text = cellText(type, value, inline, strings);
          if (!text) break;
          if (column < firstColumn) cells.unshift(text); // left of the sheet's stated dimension: kept, first
          else if (column < MAX_ALIGNED_COLUMNS) cells[column - firstColumn] = text;
          else cells.push(text);
          break;
        }
        case "row":
          out.row(rowNumber, Array.from(cells, (c) => c ?? ""));
          if (++rowsRead % 10_000 === 0) budget.checkClock();
          break;
        case "sheetData":
          out.flush();
          break;
      }
    },
    text(s) {
      if (capture === "v") value += s;
      else if (capture === "t" && phonetic === 0) inline.push(s);
    },
  });
  out.flush();
}

function cellText(type: string | undefined, value: string, inline: string[], strings: string[]): string {
  switch (type) {
    case "s":
      return strings[Number(value)] ?? "";
    case "inlineStr":
      return inline.join("");
    case "b":
      return value === "1" ? "TRUE" : value === "0" ? "FALSE" : value;
    default:
      // "n" (or none), "str" (a formula's text), "e" (an error), "d" (an ISO date).
      return value;
  }
}
