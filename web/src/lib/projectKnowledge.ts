// A project's documents as the web app shows them (PROTOCOL.md, "Knowledge"): each file's kind and
// indexing status in words, and the passages an answer cites as chips, the same whether they come
// from the stored answer's metadata.citations or live from pipeline:stream's citations (those whose
// url is knowledge:…, which protocol's documentCitation reads back).

import {
  documentCitation,
  DOCX_TYPE,
  KNOWLEDGE_STATUSES,
  placeOf,
  PPTX_TYPE,
  XLSX_TYPE,
  type Citation,
  type DocumentCitation,
  type KnowledgeStatus,
  type MessageMetadata,
  type PassageLocation,
  type ProjectFile,
} from "@protocol";
import { ApiError, errorText } from "../api";
import { isRecord } from "./untrusted";

// ---------- Files ----------

const KINDS: Record<string, string> = {
  "application/pdf": "PDF",
  [DOCX_TYPE]: "Word document",
  [XLSX_TYPE]: "Excel workbook",
  [PPTX_TYPE]: "PowerPoint deck",
  "text/html": "HTML",
  "application/json": "JSON",
  "text/markdown": "Markdown",
  "text/csv": "CSV",
  "text/plain": "Text",
};

/** A file's type in words: "PDF", "Excel workbook", "PNG image". */
export function fileKind(mediaType: string): string {
  if (KINDS[mediaType]) return KINDS[mediaType];
  if (mediaType.startsWith("image/")) return `${mediaType.slice(6).toUpperCase()} image`;
  return mediaType;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/** What a file's `pages` counts: a workbook's sheets, a deck's slides, else pages. */
export function pagesUnit(mediaType: string): "page" | "sheet" | "slide" {
  if (mediaType === XLSX_TYPE || mediaType === "text/csv") return "sheet";
  if (mediaType === PPTX_TYPE) return "slide";
  return "page";
}

/** A status the server may send that this app does not know reads as processing (it will be listed again). */
export const statusOf = (file: Pick<ProjectFile, "status">): KnowledgeStatus =>
  (KNOWLEDGE_STATUSES as readonly string[]).includes(file.status) ? file.status : "processing";

/** "Processing…", "Ready · 12 pages · 40 passages", "Failed: <why>". */
export function statusText(file: Pick<ProjectFile, "status" | "error" | "pages" | "passages" | "mediaType">): string {
  switch (statusOf(file)) {
    case "processing":
      return "Processing…";
    case "failed":
      return `Failed: ${file.error || "its text could not be extracted"}`;
    case "ready": {
      const parts = ["Ready"];
      if (typeof file.pages === "number") parts.push(plural(file.pages, pagesUnit(file.mediaType)));
      // An image has no text to cut (it goes to the model as an image).
      if (typeof file.passages === "number" && !file.mediaType.startsWith("image/")) parts.push(plural(file.passages, "passage"));
      return parts.join(" · ");
    }
  }
}

/** Whether the list should be read again soon: a file's text is still being extracted and indexed. */
export const anyProcessing = (files: readonly Pick<ProjectFile, "status">[] | undefined): boolean =>
  !!files?.some((f) => statusOf(f) === "processing");

/** How often the file list is read while a file processes. */
export const PROCESSING_POLL_MS = 2_000;

// ---------- Search ----------

/** A passage longer than the few lines a search result shows: it gets "Show all". */
export const passageIsLong = (text: string, chars = 280, lines = 4): boolean => text.length > chars || text.split("\n").length > lines;

/** A result's score, small: two decimals, whole from 100 on. */
export const formatScore = (score: number): string =>
  !Number.isFinite(score) ? "–" : Math.abs(score) >= 100 ? score.toFixed(0) : score.toFixed(2);

// ---------- Places ----------

/** Where a passage is, for the panel's heading: "Page 37", "Sheet Sales, row 12", "Slide 3", "Section: Pricing". */
export function placeHeading(location: PassageLocation): string {
  if ("page" in location || "row" in location || "slide" in location) {
    const place = placeOf(location);
    return place.charAt(0).toUpperCase() + place.slice(1);
  }
  return location.heading ? `Section: ${location.heading}` : "At the start";
}

/** A stable key for a file's place: two citations of the same place share a chip. */
export const placeKey = (fileId: string, location: PassageLocation) =>
  `${fileId}|${Object.entries(location)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join("&")}`;

// ---------- Citations ----------

function locationOf(v: unknown): PassageLocation | null {
  if (!isRecord(v)) return null;
  const num = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : null);
  if (num(v.page) !== null) return { page: num(v.page)! };
  if (num(v.row) !== null) return { sheet: typeof v.sheet === "string" ? v.sheet : "", row: num(v.row)! };
  if (num(v.slide) !== null) return { slide: num(v.slide)! };
  if (typeof v.heading === "string") return { heading: v.heading };
  return null;
}

/**
 * metadata.citations of a stored answer, or null when it has none. Metadata is open JSON: anything
 * not shaped as a document citation is left out rather than trusted.
 */
export function documentsFromMetadata(meta: MessageMetadata): DocumentCitation[] | null {
  const list = meta.citations as unknown;
  if (!Array.isArray(list)) return null;
  const out: DocumentCitation[] = [];
  for (const c of list) {
    if (!isRecord(c) || typeof c.fileId !== "string" || typeof c.name !== "string") continue;
    const location = locationOf(c.location);
    if (!location) continue;
    // An answer stored before citations named their project has none: its chip shows the passage, but cannot open the file.
    const projectId = typeof c.projectId === "string" ? c.projectId : "";
    const threadId = typeof c.threadId === "string" && c.threadId ? { threadId: c.threadId } : {};
    out.push({ projectId, ...threadId, fileId: c.fileId, name: c.name, location, citedText: typeof c.citedText === "string" ? c.citedText : "" });
  }
  return out.length ? out : null;
}

/** The document citations among a citations event's (the others are the web's, for numbered references). */
export function applyDocumentCitations(documents: readonly DocumentCitation[], citations: readonly Citation[]): readonly DocumentCitation[] {
  const added = citations.flatMap((c) => documentCitation(c) ?? []);
  return added.length ? [...documents, ...added] : documents;
}

/** One chip under an answer: a file's place, with every passage the answer cites from it there. */
export interface CitationChip {
  key: string;
  /** The project the file was in when the answer cited it ("" for an answer stored before citations named it). */
  projectId: string;
  /** The thread whose attachment it is (a long attachment's passage), instead of a project. */
  threadId?: string;
  fileId: string;
  name: string;
  location: PassageLocation;
  /** "report.pdf · page 37". */
  label: string;
  /** The cited passages, each once, in order of citation. */
  quotes: string[];
}

/** The chips of an answer's document citations: one per file and place, in order of first citation. */
export function citationChips(citations: readonly DocumentCitation[] | null | undefined): CitationChip[] {
  const byPlace = new Map<string, CitationChip>();
  for (const c of citations ?? []) {
    const key = placeKey(c.fileId, c.location);
    let chip = byPlace.get(key);
    if (!chip) {
      chip = { key, projectId: c.projectId, ...(c.threadId ? { threadId: c.threadId } : {}), fileId: c.fileId, name: c.name || "document", location: c.location, label: `${c.name || "document"} · ${placeOf(c.location)}`, quotes: [] };
      byPlace.set(key, chip);
    }
    const quote = c.citedText.trim();
    if (quote && !chip.quotes.includes(quote)) chip.quotes.push(quote);
  }
  return [...byPlace.values()];
}

// ---------- Opening the cited file ----------

/** The panel's button: "Open report.pdf at page 37" for a PDF's page, else "Open <name>" (the file is downloaded). */
export const openLabel = (name: string, location: PassageLocation): string => ("page" in location ? `Open ${name} at page ${location.page}` : `Open ${name}`);

/** Whether the cited file is most likely a PDF (only a PDF's passages are at pages), so a tab is worth opening within the click. */
export const likelyPdf = (name: string, location: PassageLocation): boolean => "page" in location || /\.pdf$/i.test(name);

/** What the panel says when the file's bytes are not there: deleted, or the thread's project changed. */
export const FILE_GONE = "This file is no longer in the project.";

/** Why the cited file could not be opened: a 404 is FILE_GONE, anything else its own message. */
export const openErrorText = (err: unknown): string => (err instanceof ApiError && err.status === 404 ? FILE_GONE : errorText(err));
