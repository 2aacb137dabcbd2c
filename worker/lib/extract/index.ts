// Text extraction for the knowledge base (PROTOCOL.md, "Knowledge"): a document's bytes become its text
// in sections, each at a place a citation names ({ page }, { sheet, row }, { slide } or { heading }),
// which the owner's object cuts into passages and indexes. Pure functions: no storage, no bindings.
// Each format is read in its own module; every one works within a budget of characters, inflated bytes
// and time, and refuses a document it cannot read with an UnprocessableError whose message says why.
import { DOCX_TYPE, PPTX_TYPE, XLSX_TYPE } from "../../../protocol";
import { Budget, DEFAULT_DEADLINE_MS, DEFAULT_MAX_CHARS, DEFAULT_MAX_INFLATED_BYTES, UnprocessableError } from "./budget";
import { extractDocx } from "./docx";
import { extractHtml } from "./html";
import { extractPdf } from "./pdf";
import { extractPptx } from "./pptx";
import { csvSections, decodeUtf8, jsonSections, markdownSections, plainSections } from "./text";
import type { Extracted } from "./types";
import { extractXlsx } from "./xlsx";
import { isZip, readZip } from "./zip";
import { isText } from "../sniff";

export type { Extracted, Location, Section } from "./types";
export { UnprocessableError, DEFAULT_MAX_CHARS, DEFAULT_DEADLINE_MS, DEFAULT_MAX_INFLATED_BYTES };

export { DOCX_TYPE, KNOWLEDGE_TYPES, PPTX_TYPE, XLSX_TYPE } from "../../../protocol";
export const PDF_TYPE = "application/pdf";

export interface ExtractOptions {
  /** Characters of text a document may have (default 20,000,000); past them it is refused. */
  maxChars?: number;
  /** Time the extraction may take (default 60 s), checked between pages, sheets, slides and parts; past it the document is refused. */
  deadlineMs?: number;
  /** Bytes an Office document's parts may inflate to together (default 200 MiB): the bound on a zip bomb. */
  maxInflatedBytes?: number;
}

const KIND: Record<string, string> = {
  [PDF_TYPE]: "PDF",
  [DOCX_TYPE]: "DOCX",
  [XLSX_TYPE]: "XLSX",
  [PPTX_TYPE]: "PPTX",
  "text/html": "HTML page",
  "text/markdown": "Markdown file",
  "text/plain": "text file",
  "text/csv": "CSV",
  "application/json": "JSON",
};

/** "Text/HTML; charset=utf-8" → "text/html". */
const baseType = (mediaType: string) => mediaType.split(";")[0].trim().toLowerCase();

/** The document's text in sections. Throws UnprocessableError when the bytes cannot be read as `mediaType` or pass a bound. */
export async function extract(mediaType: string, bytes: Uint8Array, opts: ExtractOptions = {}): Promise<Extracted> {
  const type = baseType(mediaType);
  const kind = KIND[type];
  if (!kind) throw new UnprocessableError(`Text is not extracted from files of type ${mediaType}`);
  const budget = new Budget(kind, opts.maxChars ?? DEFAULT_MAX_CHARS, opts.deadlineMs ?? DEFAULT_DEADLINE_MS, opts.maxInflatedBytes ?? DEFAULT_MAX_INFLATED_BYTES);
  try {
    switch (type) {
      case PDF_TYPE:
        return await extractPdf(bytes, budget);
      case DOCX_TYPE:
        return await extractDocx(bytes, budget);
      case XLSX_TYPE:
        return await extractXlsx(bytes, budget);
      case PPTX_TYPE:
        return await extractPptx(bytes, budget);
      case "text/html":
        return await extractHtml(bytes, budget);
    }
    const text = decodeUtf8(bytes);
    await budget.checkpoint();
    switch (type) {
      case "text/markdown":
        return { sections: markdownSections(text, budget) };
      case "text/csv":
        return { sections: csvSections(text, budget) };
      case "application/json":
        return { sections: jsonSections(text, budget) };
      default:
        return { sections: plainSections(text, budget) };
    }
  } catch (err) {
    if (err instanceof UnprocessableError) throw err;
    // A parser's own failure on these bytes (a string past the engine's length, a malformed part): still these bytes.
    throw new UnprocessableError(`This ${kind} could not be read: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The part an Office type must have (or its package's main part must be, by _rels/.rels). */
const MAIN_PART: Record<string, string> = {
  [DOCX_TYPE]: "word/document.xml",
  [XLSX_TYPE]: "xl/workbook.xml",
  [PPTX_TYPE]: "ppt/presentation.xml",
};

/**
 * A cheap check at upload time that the bytes are what `mediaType` says and worth extracting: an Office
 * document is a ZIP whose directory lists its main part; a PDF has its %PDF- header; text is UTF-8
 * (HTML with a tag in its first 64 KiB; JSON beginning as JSON does).
 */
export function looksLike(mediaType: string, bytes: Uint8Array): boolean {
  const type = baseType(mediaType);
  const main = MAIN_PART[type];
  if (main) {
    if (!isZip(bytes)) return false;
    try {
      return readZip(bytes, (why) => new UnprocessableError(why)).has(main);
    } catch {
      return false;
    }
  }
  if (type === PDF_TYPE) {
    // The header may follow a little junk, as pdf.js allows.
    const sig = [0x25, 0x50, 0x44, 0x46, 0x2d];
    for (let at = 0; at + sig.length <= Math.min(bytes.length, 1024); at++) if (sig.every((b, i) => bytes[at + i] === b)) return true;
    return false;
  }
  if (!KIND[type] || !isText(bytes)) return false;
  if (type === "text/html") return /<[A-Za-z!/]/.test(decodeUtf8(bytes.subarray(0, 65_536)));
  if (type === "application/json") return /^\uFEFF?\s*[{["\-0-9tfn]/.test(decodeUtf8(bytes.subarray(0, 1024)));
  return true;
}
