// Requests whose bodies or answers are bytes, which the JSON client (api.ts) does not make: uploads
// (XMLHttpRequest, for its upload progress), and files fetched with the caller's credentials (an
// <img src> or a link could not send token mode's Authorization header).
import type { Attachment, ProjectFile, ResponseOf } from "@protocol";
import { ApiError, apiErrorOf, authHeaders, networkError, routeUrl } from "./api";

type Uploaded = ResponseOf<"POST /api/threads/:id/attachments">;

export interface UploadOptions {
  /** Bytes sent so far, of `total`. */
  onProgress?: (sent: number, total: number) => void;
  signal?: AbortSignal;
}

/** Sends a file's bytes to the thread (the route map cannot say "raw body", hence no `request()`). */
export function uploadAttachment(threadId: string, file: File, mediaType: string, options: UploadOptions = {}): Promise<Attachment> {
  const url = routeUrl("POST /api/threads/:id/attachments", { params: { id: threadId }, query: { name: file.name } });
  return uploadBytes<Uploaded>(url, file, mediaType, options).then((body) => body.attachment);
}

/** Sends a file's bytes to a project (as an attachment's: raw bytes, `?name=`). */
export function uploadProjectFile(projectId: string, file: File, mediaType: string, options: UploadOptions = {}): Promise<ProjectFile> {
  const url = routeUrl("POST /api/projects/:projectId/files", { params: { projectId }, query: { name: file.name } });
  return uploadBytes<ResponseOf<"POST /api/projects/:projectId/files">>(url, file, mediaType, options).then((body) => body.file);
}

/** A raw-body upload through XMLHttpRequest (for its progress); resolves the JSON answer, whose one key must be set. */
function uploadBytes<T extends object>(url: string, file: File, mediaType: string, options: UploadOptions): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.setRequestHeader("Content-Type", mediaType);
    xhr.setRequestHeader("Accept", "application/json");
    for (const [name, value] of Object.entries(authHeaders())) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e) => options.onProgress?.(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onerror = () => reject(networkError());
    xhr.onabort = () => reject(new DOMException("The upload was cancelled", "AbortError"));
    xhr.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      const ok = xhr.status >= 200 && xhr.status < 300;
      if (ok && typeof body === "object" && body !== null && Object.values(body).some((v) => v && typeof v === "object")) {
        resolve(body as T);
      } else if (ok) {
        reject(new ApiError(xhr.status, "unexpected_response", "The server's answer to the upload was not a file."));
      } else {
        reject(apiErrorOf(xhr.status, body, xhr.getResponseHeader("Retry-After")));
      }
    };
    options.signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}

/** An attachment's bytes (the route map has no entry for this route: it answers bytes, not JSON). */
export const attachmentUrl = (threadId: string, attachmentId: string) =>
  routeUrl("GET /api/threads/:id/attachments/:attachmentId", { params: { id: threadId, attachmentId } });

/** A file the thread's code wrote (GET /api/threads/:id/files/:fileId). */
export const producedFileUrl = (threadId: string, fileId: string) => routeUrl("GET /api/threads/:id/files/:fileId", { params: { id: threadId, fileId } });

/** A project's file (GET /api/projects/:projectId/files/:fileId), as a citation opens it. */
export const projectFileUrl = (projectId: string, fileId: string) =>
  routeUrl("GET /api/projects/:projectId/files/:fileId", { params: { projectId, fileId } });

export interface FetchedFile {
  blob: Blob;
  /** From Content-Disposition, when the server names the file. */
  fileName: string | null;
}

/** The file named by Content-Disposition's `filename="…"`. */
function fileNameOf(disposition: string | null): string | null {
  const match = /filename="([^"]+)"/i.exec(disposition ?? "");
  return match ? match[1] : null;
}

/** A file from the API, fetched with the caller's credentials. */
export async function fetchFile(url: string, signal?: AbortSignal): Promise<FetchedFile> {
  let res: Response;
  try {
    res = await fetch(url, { headers: authHeaders(), signal });
  } catch (err) {
    if ((err as Error)?.name === "AbortError") throw err;
    throw networkError();
  }
  if (!res.ok) {
    const body = await res.json().catch(() => undefined);
    throw apiErrorOf(res.status, body, res.headers.get("Retry-After"));
  }
  return { blob: await res.blob(), fileName: fileNameOf(res.headers.get("Content-Disposition")) };
}

/** Saves a blob as a download named `fileName`. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.style.display = "none";
  document.body.append(link);
  link.click();
  link.remove();
  // The download has taken its copy once the click's task is over.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Opens a file in a new tab. The tab is opened at once, within the click (a tab opened after an
 * await is a blocked pop-up), and shown the file when it arrives. Text of any kind is shown as
 * UTF-8 plain text, which the browser displays instead of downloading.
 */
export function openFileInTab(load: () => Promise<Blob>, fileName: string): Promise<void> {
  const tab = window.open("", "_blank");
  return load().then(
    (blob) => {
      const shown = blob.type.startsWith("text/") ? new Blob([blob], { type: "text/plain;charset=utf-8" }) : blob;
      const url = URL.createObjectURL(shown);
      if (tab) {
        tab.opener = null;
        tab.location.href = url;
      } else {
        saveBlob(blob, fileName);
      }
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    },
    (err: unknown) => {
      tab?.close();
      throw err;
    },
  );
}

/** Whether a blob's type is PDF's (parameters and case aside). */
export const isPdfType = (type: string): boolean => type.split(";")[0].trim().toLowerCase() === "application/pdf";

export interface OpenOrSaveOptions {
  /** The PDF page to open at (`#page=N`, which the browser's viewer reads). */
  page?: number;
  /**
   * Whether the file is expected to be a PDF: a tab is then opened at once, within the click (a tab
   * opened after an await is a blocked pop-up), and closed again should the file not be one.
   */
  expectPdf?: boolean;
}

/**
 * A file as a citation opens it: a PDF in a new tab at its page, any other type (DOCX, XLSX, PPTX,
 * HTML, text) saved as a download named `fileName`, as the code card's download is. Which it is, the
 * bytes' type says once they arrive. A PDF with no tab (not expected, or the tab was blocked) gets one
 * then if the browser allows, else is saved. Rejects with the load's error (the tab closed again).
 */
export function openOrSave(load: () => Promise<Blob>, fileName: string, options: OpenOrSaveOptions = {}): Promise<"opened" | "saved"> {
  // Before the first await: still within the click.
  const tab = options.expectPdf ? window.open("", "_blank") : null;
  return load().then(
    (blob) => {
      if (!isPdfType(blob.type)) {
        tab?.close();
        saveBlob(blob, fileName);
        return "saved";
      }
      const objectUrl = URL.createObjectURL(blob);
      const href = options.page ? `${objectUrl}#page=${options.page}` : objectUrl;
      const shown = tab ?? window.open(href, "_blank");
      if (!shown) {
        URL.revokeObjectURL(objectUrl);
        saveBlob(blob, fileName);
        return "saved";
      }
      shown.opener = null;
      if (tab) tab.location.href = href;
      setTimeout(() => URL.revokeObjectURL(objectUrl), 60_000);
      return "opened";
    },
    (err: unknown) => {
      tab?.close();
      throw err;
    },
  );
}
