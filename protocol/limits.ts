// Limits both sides check: the Worker refuses past them, the web app says so before sending.

export const MAX_BODY_BYTES = 256 * 1024;
export const MAX_CONTENT_CHARS = 100_000;
export const MAX_CLIENT_MESSAGE_ID = 128;
export const MAX_INSTRUCTIONS_CHARS = 20_000;
export const MAX_CONTEXT_FILE_CHARS = 200_000;
/** The folder of the owner's context files that the memory tool works on: the assistant's own notes. */
export const MEMORY_DIR = "memories";

/** A context file's path: relative, of plain segments (no empty, dot or dot-dot segments, no backslashes). */
export function isContextPath(path: string): boolean {
  return (
    path.length > 0 &&
    path.length <= 200 &&
    !path.includes("\\") &&
    path.split("/").every((seg) => seg !== "" && seg !== "." && seg !== ".." && /^[\w.@ -]+$/.test(seg))
  );
}
/** An artifact version's content, in bytes (UTF-8), and how many artifacts one thread may hold. */
export const MAX_ARTIFACT_BYTES = 1024 * 1024;
export const MAX_ARTIFACTS_PER_THREAD = 200;
/** An IANA timezone this runtime's Intl knows (the browser checks before sending one; the Worker on receipt). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** GET messages' default page, and the branch a thread:updated carries after a branch change. */
export const MESSAGE_PAGE = 100;
export const MAX_ATTACHMENTS_PER_MESSAGE = 10;
/** All of one message's attachments together: a run holds them in memory, with the request they make. */
export const MAX_ATTACHMENT_BYTES_PER_MESSAGE = 20 * 1024 * 1024;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** An office document, a workbook or JSON (PROTOCOL.md, "Knowledge": up to 25 MiB a document). */
export const MAX_DOCUMENT_BYTES = 25 * 1024 * 1024;

export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export const DOCUMENT_TYPES = ["application/pdf", "text/plain", "text/markdown", "text/csv"] as const;
export const XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
export const DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
export const PPTX_TYPE = "application/vnd.openxmlformats-officedocument.presentationml.presentation";
/** Data for the code's container (PROTOCOL.md, "Code execution"): JSON the model reads too, a workbook only code reads. */
export const DATA_TYPES = ["application/json", XLSX_TYPE] as const;
/** Documents whose text is extracted (PROTOCOL.md, "Knowledge"); source code comes as text/plain. */
export const OFFICE_TYPES = [DOCX_TYPE, PPTX_TYPE, "text/html"] as const;
export const ATTACHMENT_TYPES = [...IMAGE_TYPES, ...DOCUMENT_TYPES, ...DATA_TYPES, ...OFFICE_TYPES] as const;
/** Every type whose text a project indexes (all but images). */
export const KNOWLEDGE_TYPES = [...DOCUMENT_TYPES, ...DATA_TYPES, ...OFFICE_TYPES] as const;
/** Files a project keeps at most (PROJECT_FILES_MAX overrides it). */
export const PROJECT_FILES_DEFAULT = 500;
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number];

export const maxBytesFor = (mediaType: string) =>
  (IMAGE_TYPES as readonly string[]).includes(mediaType)
    ? MAX_IMAGE_BYTES
    : ([...OFFICE_TYPES, ...DATA_TYPES] as readonly string[]).includes(mediaType)
      ? MAX_DOCUMENT_BYTES
      : MAX_FILE_BYTES;
