import { DOCX_TYPE, PPTX_TYPE, XLSX_TYPE } from "@protocol";

/** A file's kind in a few letters (PDF, TXT, MD, CSV, DOCX), where an icon would go. */
const LABEL: Record<string, string> = {
  "application/pdf": "PDF",
  "text/plain": "TXT",
  "text/markdown": "MD",
  "text/csv": "CSV",
  "text/html": "HTML",
  "application/json": "JSON",
  [DOCX_TYPE]: "DOCX",
  [XLSX_TYPE]: "XLSX",
  [PPTX_TYPE]: "PPTX",
};

export function FileBadge({ mediaType }: { mediaType: string }) {
  const label = LABEL[mediaType] ?? (mediaType.startsWith("image/") ? "IMG" : "FILE");
  return (
    <span className={`file-badge is-${label.toLowerCase()}`} aria-hidden="true">
      {label}
    </span>
  );
}
