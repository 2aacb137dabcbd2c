// The files attached to a message being written: each one checked against the protocol's limits,
// then uploading (with its progress), uploaded (an Attachment), or failed (with the reason shown next
// to it). A pure reducer; hooks/useUploads.ts does the uploading.
import { ATTACHMENT_TYPES, DOCX_TYPE, IMAGE_TYPES, MAX_ATTACHMENTS_PER_MESSAGE, maxBytesFor, PPTX_TYPE, XLSX_TYPE, type Attachment } from "@protocol";
import { formatBytes } from "./format";

export interface Upload {
  /** This page's own id for the file (it has no server id until uploaded). */
  key: string;
  name: string;
  mediaType: string;
  bytes: number;
  status: "uploading" | "done" | "failed";
  /** Bytes sent so far. */
  sent: number;
  attachment?: Attachment;
  error?: string;
  /** An object URL of the local file (images): the thumbnail while and after it uploads. */
  preview?: string;
}

export type UploadAction =
  | { type: "add"; uploads: Upload[] }
  | { type: "progress"; key: string; sent: number }
  | { type: "done"; key: string; attachment: Attachment }
  | { type: "failed"; key: string; error: string }
  | { type: "remove"; key: string }
  | { type: "clear" };

/** Source code and other plain text the server takes as text/plain (browsers name it their own way, or not at all). */
const SOURCE_EXTENSIONS = [
  "c", "cc", "cpp", "cxx", "h", "hh", "hpp", "cs", "go", "rs", "java", "kt", "kts", "scala", "swift", "m", "mm",
  "py", "rb", "php", "pl", "pm", "lua", "r", "jl", "dart", "ex", "exs", "erl", "hs", "clj", "ml", "fs", "elm", "zig", "nim", "v",
  "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "vue", "svelte", "astro", "css", "scss", "sass", "less",
  "sh", "bash", "zsh", "fish", "ps1", "bat", "sql", "graphql", "gql", "proto",
  "xml", "yaml", "yml", "toml", "ini", "cfg", "conf", "env", "properties", "gradle", "cmake", "mk", "dockerfile",
  "makefile", "tex", "rst", "adoc", "org", "diff", "patch", "ipynb",
] as const;

/** Browsers leave the type of some files empty (or name it their own way, as .ts video/mp2t): go by the extension. */
const BY_EXTENSION: Record<string, string> = {
  ...Object.fromEntries(SOURCE_EXTENSIONS.map((ext) => [ext, "text/plain"])),
  md: "text/markdown",
  markdown: "text/markdown",
  csv: "text/csv",
  txt: "text/plain",
  text: "text/plain",
  log: "text/plain",
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  json: "application/json",
  html: "text/html",
  htm: "text/html",
  docx: DOCX_TYPE,
  xlsx: XLSX_TYPE,
  pptx: PPTX_TYPE,
};

/** A file input's `accept`: the types the server takes, and the extensions whose type a browser may not know. */
export const ACCEPTED_FILES = [...ATTACHMENT_TYPES, ...Object.keys(BY_EXTENSION).map((ext) => `.${ext}`)].join(",");

const isAccepted = (type: string) => (ATTACHMENT_TYPES as readonly string[]).includes(type);

/** The media type the file is sent with: the browser's when the server takes it, else by extension. */
export function mediaTypeOf(file: { name: string; type: string }): string {
  const type = file.type.split(";")[0].trim().toLowerCase();
  if (isAccepted(type)) return type;
  // "Dockerfile" and "Makefile" have no extension: their name is their kind.
  const ext = (/\.([a-z0-9]+)$/i.exec(file.name)?.[1] ?? file.name).toLowerCase();
  return Object.hasOwn(BY_EXTENSION, ext) ? BY_EXTENSION[ext] : type;
}

export const isImage = (mediaType: string) => (IMAGE_TYPES as readonly string[]).includes(mediaType);

/** Why the server would refuse this file (its type or size), or null. */
export function refusal(mediaType: string, bytes: number): string | null {
  if (!isAccepted(mediaType)) return "This kind of file cannot be sent: use an image (PNG, JPEG, GIF, WebP), a PDF, a Word document, a workbook or a deck (DOCX, XLSX, PPTX), HTML, plain text or code, Markdown, CSV or JSON.";
  if (bytes === 0) return "This file is empty.";
  const max = maxBytesFor(mediaType);
  if (bytes > max) return `Too large: ${formatBytes(bytes)}, and ${isImage(mediaType) ? "images" : "files"} may be at most ${formatBytes(max)}.`;
  return null;
}

/**
 * New entries for files the user picked: those the server would refuse, and those past the
 * per-message count, start as failed (nothing is sent for them); the others start uploading.
 */
export function newUploads(current: readonly Upload[], files: { name: string; type: string; size: number }[], makeKey: () => string): Upload[] {
  let room = MAX_ATTACHMENTS_PER_MESSAGE - current.filter((u) => u.status !== "failed").length;
  return files.map((file) => {
    const mediaType = mediaTypeOf(file);
    let error = refusal(mediaType, file.size);
    if (!error && room <= 0) error = `At most ${MAX_ATTACHMENTS_PER_MESSAGE} files can go with one message.`;
    if (!error) room--;
    const upload: Upload = { key: makeKey(), name: file.name, mediaType, bytes: file.size, status: "uploading", sent: 0 };
    return error ? { ...upload, status: "failed", error } : upload;
  });
}

export function uploadsReducer(state: readonly Upload[], action: UploadAction): readonly Upload[] {
  const update = (key: string, patch: (u: Upload) => Partial<Upload>) =>
    state.some((u) => u.key === key) ? state.map((u) => (u.key === key ? { ...u, ...patch(u) } : u)) : state;
  switch (action.type) {
    case "add":
      return [...state, ...action.uploads];
    case "progress":
      // A late progress event never moves a finished upload back.
      return update(action.key, (u) => (u.status === "uploading" ? { sent: Math.max(u.sent, action.sent) } : {}));
    case "done":
      return update(action.key, (u) => (u.status === "uploading" ? { status: "done", sent: u.bytes, attachment: action.attachment } : {}));
    case "failed":
      return update(action.key, (u) => (u.status === "uploading" ? { status: "failed", error: action.error } : {}));
    case "remove":
      return state.filter((u) => u.key !== action.key);
    case "clear":
      return [];
    default:
      return state;
  }
}

export interface UploadsSummary {
  /** Uploads still on their way: the message waits for them. */
  uploading: number;
  /** Failed uploads: the user removes them (or sees why) before sending. */
  failed: number;
  /** What a sent message carries, in the order the files were added. */
  attachments: Attachment[];
}

export function summarize(uploads: readonly Upload[]): UploadsSummary {
  return {
    uploading: uploads.filter((u) => u.status === "uploading").length,
    failed: uploads.filter((u) => u.status === "failed").length,
    attachments: uploads.flatMap((u) => (u.status === "done" && u.attachment ? [u.attachment] : [])),
  };
}

/** Upload progress as a whole percentage. */
export const percent = (u: Upload) => (u.bytes ? Math.min(100, Math.round((u.sent / u.bytes) * 100)) : 0);
