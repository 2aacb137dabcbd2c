// The files attached to a message being written: each one checked against the protocol's limits,
// then uploading (with its progress), uploaded (an Attachment), or failed (with the reason shown next
// to it). A pure reducer; hooks/useUploads.ts does the uploading.
import { ATTACHMENT_TYPES, IMAGE_TYPES, MAX_ATTACHMENTS_PER_MESSAGE, maxBytesFor, type Attachment } from "@protocol";
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

/** Browsers leave the type of some text files empty (or name it their own way): go by the extension. */
const BY_EXTENSION: Record<string, string> = {
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
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};

const isAccepted = (type: string) => (ATTACHMENT_TYPES as readonly string[]).includes(type);

/** The media type the file is sent with: the browser's when the server takes it, else by extension. */
export function mediaTypeOf(file: { name: string; type: string }): string {
  const type = file.type.split(";")[0].trim().toLowerCase();
  if (isAccepted(type)) return type;
  const ext = /\.([a-z0-9]+)$/i.exec(file.name)?.[1]?.toLowerCase() ?? "";
  return BY_EXTENSION[ext] ?? type;
}

export const isImage = (mediaType: string) => (IMAGE_TYPES as readonly string[]).includes(mediaType);

/** Why the server would refuse this file (its type or size), or null. */
export function refusal(mediaType: string, bytes: number): string | null {
  if (!isAccepted(mediaType)) return "This kind of file cannot be sent: use an image (PNG, JPEG, GIF, WebP), a PDF, text, Markdown, CSV, JSON or an Excel workbook (XLSX).";
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
