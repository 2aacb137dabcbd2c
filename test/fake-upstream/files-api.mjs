// The Files API of the fake (POST /v1/files, GET /v1/files, GET /v1/files/:id, GET /v1/files/:id/content,
// DELETE /v1/files/:id), with the files the code execution tool makes. Shapes from @anthropic-ai/sdk 1.12
// (resources/files.ts and resources/beta/files.ts: FileMetadata, DeletedFile, FileNotDownloadableError) and
// Anthropic's Files API guide:
//   - metadata is {id, type: "file", filename, mime_type, size_bytes, created_at, downloadable} (plus
//     expires_at for an upload given expires_in_seconds);
//   - only files a tool made can be downloaded: an upload's content is 400 invalid_request_error with
//     details.error_code "file_not_downloadable" (the SDK raises FileNotDownloadableError);
//   - an unknown or deleted id is 404 not_found_error; a file past the limit (500 MB) 413 request_too_large;
//     a bad upload (not multipart, no `file` part, a filename past 255 characters or with <>:"|?* or control
//     characters, expires_in_seconds outside 3600..7776000) 400 invalid_request_error.
// Neither endpoint needs a beta header here: the SDK's GA `files` resource sends none, its beta one may send
// files-api-2025-04-14.
import { randomId } from "./ids.mjs";

/** The API's limit on one file. Tests lower it with POST /_control/files/limit. */
export const MAX_FILE_BYTES = 500 * 1024 * 1024;

const MEDIA_TYPE_BY_EXTENSION = {
  csv: "text/csv",
  txt: "text/plain",
  md: "text/markdown",
  json: "application/json",
  py: "text/x-python",
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
};

export function createFileStore() {
  return { files: new Map(), uploads: 0, downloads: 0, maxBytes: MAX_FILE_BYTES, failures: [] };
}

/** Stores a file; `downloadable` is true only for what a tool made, as the API has it. */
export function addFile(store, { id, filename, mimeType, bytes, downloadable, source, expiresAt = null }) {
  const record = {
    id: id ?? randomId("file_"),
    filename,
    mimeType: mimeType ?? mediaTypeOf(filename),
    bytes,
    downloadable,
    source,
    createdAt: isoNow(),
    expiresAt,
    downloads: 0,
  };
  store.files.set(record.id, record);
  return record;
}

export function mediaTypeOf(filename) {
  const extension = /\.([^.]+)$/.exec(filename ?? "")?.[1]?.toLowerCase();
  return MEDIA_TYPE_BY_EXTENSION[extension] ?? "application/octet-stream";
}

export function fileMetadata(f) {
  return {
    id: f.id,
    type: "file",
    filename: f.filename,
    mime_type: f.mimeType,
    size_bytes: f.bytes.length,
    created_at: f.createdAt,
    downloadable: f.downloadable,
    ...(f.expiresAt ? { expires_at: f.expiresAt } : {}),
  };
}

/** For GET /_control/files: what was uploaded and made, and how often each was downloaded. */
export function fileStats(store) {
  const files = [...store.files.values()].map((f) => ({ ...fileMetadata(f), source: f.source, downloads: f.downloads }));
  return { uploads: store.uploads, downloads: store.downloads, files };
}

// ---------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------

/**
 * Answers a /v1/files request. `io` is server.mjs's { sendJson, sendApiError, hasApiKey, readRaw }.
 */
/**
 * POST /_control/files/fail { id?, filename?, status, type?, message? }: the Files API answers that error
 * for file `id` (its metadata and content) or for uploads named `filename`, until the fake is reset. By
 * name or id, so tests that run at once do not see each other's faults.
 */
export function failFiles(store, body) {
  if (typeof body?.status !== "number" || (typeof body.id !== "string" && typeof body.filename !== "string")) return false;
  const type = body.type ?? (body.status >= 500 ? "api_error" : body.status === 404 ? "not_found_error" : "invalid_request_error");
  store.failures.push({ id: body.id, filename: body.filename, status: body.status, type, message: body.message ?? "Internal server error" });
  return true;
}

export async function handleFilesApi(store, req, res, path, io) {
  const fail = (status, type, message, details) => io.sendApiError(res, { status, body: errorBody(type, message, details) });
  if (!io.hasApiKey(req.headers)) return fail(401, "authentication_error", "x-api-key header is required");

  const [, , , id, sub] = path.split("/"); // "", "v1", "files", id?, "content"?
  const route = `${req.method} ${id === undefined ? "" : sub === undefined ? ":id" : sub}`;
  if (route === "POST ") return upload(store, req, res, io, fail);
  if (route === "GET ") return io.sendJson(res, 200, { data: [...store.files.values()].reverse().map(fileMetadata), next_page: null });

  const failure = store.failures.find((f) => f.id !== undefined && f.id === decodeURIComponent(id ?? ""));
  if (failure) return fail(failure.status, failure.type, failure.message);
  const file = store.files.get(decodeURIComponent(id ?? ""));
  if (!["GET :id", "DELETE :id", "GET content"].includes(route)) return fail(404, "not_found_error", `Not found: ${req.method} ${path}`);
  if (!file) return fail(404, "not_found_error", `File not found: ${id}`);
  if (route === "GET :id") return io.sendJson(res, 200, fileMetadata(file));
  if (route === "DELETE :id") {
    store.files.delete(file.id);
    return io.sendJson(res, 200, { id: file.id, type: "file_deleted" });
  }
  if (!file.downloadable) {
    return fail(400, "invalid_request_error", `File ${file.id} is not downloadable. Only files created by a tool, such as the code execution tool, can be downloaded.`, { error_code: "file_not_downloadable" });
  }
  file.downloads += 1;
  store.downloads += 1;
  res.writeHead(200, { "content-type": file.mimeType, "content-length": file.bytes.length, "request-id": randomId("req_") });
  res.end(file.bytes);
}

async function upload(store, req, res, io, fail) {
  const raw = await io.readRaw(req);
  let form;
  try {
    form = await new Response(raw, { headers: { "content-type": req.headers["content-type"] ?? "" } }).formData();
  } catch {
    return fail(400, "invalid_request_error", "Request body must be multipart/form-data with a `file` part.");
  }
  const part = form.get("file");
  if (!part || typeof part === "string") return fail(400, "invalid_request_error", "file: Field required");
  const bytes = Buffer.from(await part.arrayBuffer());
  if (bytes.length > store.maxBytes) return fail(413, "request_too_large", `File exceeds the maximum allowed size of ${store.maxBytes} bytes.`);

  const partType = part.type && part.type !== "application/octet-stream" ? part.type.split(";")[0] : undefined;
  const filename = uploadName(part.name, partType);
  if (filename.length > 255 || /[<>:"|?*\u0000-\u001f]/.test(filename)) {
    return fail(400, "invalid_request_error", "file: Filename must be 1-255 characters and may not contain <, >, :, \", |, ?, * or control characters.");
  }
  const failure = store.failures.find((f) => f.filename !== undefined && f.filename === filename);
  if (failure) return fail(failure.status, failure.type, failure.message);
  const expires = form.get("expires_in_seconds");
  const seconds = expires === null ? undefined : Number(expires);
  if (seconds !== undefined && !(Number.isInteger(seconds) && seconds >= 3600 && seconds <= 7_776_000)) {
    return fail(400, "invalid_request_error", "expires_in_seconds: Input should be an integer between 3600 and 7776000");
  }
  const expiresAt = seconds === undefined ? null : new Date(Date.now() + seconds * 1000).toISOString();
  const file = addFile(store, { filename, mimeType: partType ?? mediaTypeOf(filename), bytes, downloadable: false, source: "upload", expiresAt });
  store.uploads += 1;
  io.sendJson(res, 200, fileMetadata(file), { "request-id": randomId("req_") });
}

/** Only the final path component is kept; a part without a name becomes "unnamed" plus its type's extension. */
function uploadName(name, mediaType) {
  const base = String(name ?? "").split(/[\\/]/).pop() ?? "";
  if (base && base !== "blob") return base;
  const extension = Object.entries(MEDIA_TYPE_BY_EXTENSION).find(([, type]) => type === mediaType)?.[0];
  return extension ? `unnamed.${extension}` : "unnamed";
}

function errorBody(type, message, details) {
  return { type: "error", error: { type, message, ...(details ? { details } : {}) }, request_id: randomId("req_") };
}

/** RFC 3339 with microseconds, as the API writes its timestamps ("2025-10-20T11:48:47.798310Z"). */
export function isoNow(offsetMs = 0) {
  return new Date(Date.now() + offsetMs).toISOString().replace(/Z$/, "000Z");
}
