// A project's files (PROTOCOL.md, "Projects" and "Knowledge"; their bytes are read back as an
// attachment's are, an addition for the citation chips): uploaded as a message's attachments are
// (bytes in R2 under the caller's storage quota, within PROJECT_FILES_MAX a project), their text
// extracted here, in the Worker, and cut and indexed by the owner's object (knowledge/). A file whose
// bytes are not its type is 415; one that cannot be parsed at all is 422 and nothing is stored. A
// small file is extracted before the answer; a larger one after it (its status says processing).
import { Hono, type Context } from "hono";
import { z } from "zod";
import { ATTACHMENT_TYPES, maxBytesFor, type AttachmentType } from "../../protocol";
import { configOf } from "../env";
import { extract, looksLike, UnprocessableError } from "../lib/extract";
import { safeName } from "../lib/file-name";
import { newId } from "../lib/ids";
import { consoleLogger } from "../lib/logger";
import { matchesType } from "../lib/sniff";
import { askUser, type AppEnv } from "./app-env";
import { deleteUploadsLater, readBytes, unsupportedType } from "./attachments";
import { ApiError, notFound } from "./errors";
import { fileResponse } from "./file-response";
import { reply } from "./reply";
import { limitParam, queryParams } from "./validate";

const fileQuery = z.object({ name: z.string().trim().min(1).max(200).optional() });
const searchQuery = z.object({ q: z.string().trim().min(1).max(2_000), limit: limitParam(5, 20) });
/** Files up to this size are extracted before the upload's answer: it says ready (or 422) at once. */
const INLINE_BYTES = 512 * 1024;

const logger = consoleLogger("http");
const noProject = () => notFound("No such project");
const noFile = () => notFound("No such file in this project");

/** A file the index is told of: its place, its type and where its bytes are. */
interface Ingest {
  projectId: string;
  fileId: string;
  mediaType: string;
  name: string;
}

/** The file's text, extracted and handed to the owner's object to index; a failure is its status, with the reason. */
async function ingest(c: Context<AppEnv>, file: Ingest, bytes: Uint8Array): Promise<void> {
  const config = configOf(c.env);
  try {
    const extracted = file.mediaType.startsWith("image/") ? { sections: [] } : await extract(file.mediaType, bytes, { maxChars: config.documentMaxChars, deadlineMs: config.documentParseMs });
    const pages = extracted.pages ?? extracted.sheets ?? extracted.slides ?? null;
    await askUser(c, (user) => user.indexProjectFile(file.projectId, file.fileId, extracted.sections, pages, config.projectMaxChars));
  } catch (err) {
    const reason = err instanceof UnprocessableError ? err.message : "Its text could not be extracted; process it again";
    if (!(err instanceof UnprocessableError)) logger.error("a project file's extraction failed", { fileId: file.fileId, error: String(err) });
    await askUser(c, (user) => user.projectFileFailed(file.projectId, file.fileId, reason));
  }
}

export const projectFileRoutes = new Hono<AppEnv>()
  .post("/:projectId/files", async (c) => {
    const projectId = c.req.param("projectId");
    const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (!(ATTACHMENT_TYPES as readonly string[]).includes(type)) {
      throw unsupportedType();
    }
    const { name: fileName } = queryParams(c, fileQuery);
    if (!(await askUser(c, (user) => user.project(projectId)))) throw noProject();
    const bytes = await readBytes(c, maxBytesFor(type));
    if (bytes.byteLength === 0) throw new ApiError("invalid_request", "The file is empty", { issues: [] });
    if (!matchesType(type as AttachmentType, bytes)) throw new ApiError("unsupported_media_type", `These bytes are not ${type}`);
    if (!type.startsWith("image/") && !looksLike(type, bytes)) throw new ApiError("unprocessable", `This file could not be read as ${type}`);
    const id = newId("pfl");
    const r2Key = `${c.var.userId}/projects/${projectId}/${id}`;
    const name = safeName(fileName ?? "file");
    const file = { id, projectId, name, mediaType: type, bytes: bytes.byteLength, createdAt: Date.now() };
    const config = configOf(c.env);
    const bounds = { quotaBytes: config.userStorageQuotaBytes, maxFiles: config.projectFilesMax };
    const kept = await askUser(c, (user) => user.addProjectFile({ ...file, r2Key }, bounds));
    if (kept === null) throw noProject();
    if (kept === "quota") throw new ApiError("too_large", `Your files would take more than your ${Math.round(bounds.quotaBytes / (1024 * 1024))} MiB of storage; delete some first`);
    if (kept === "files") throw new ApiError("too_large", `This project has ${bounds.maxFiles} files, the most it may have; delete some first`);
    try {
      await c.env.FILES.put(r2Key, bytes, { httpMetadata: { contentType: type } });
    } catch (err) {
      // Not stored: the record (and its charge) goes too.
      await askUser(c, (user) => user.deleteProjectFile(projectId, id));
      throw err;
    }
    const job = ingest(c, { projectId, fileId: id, mediaType: type, name }, bytes);
    if (bytes.byteLength <= INLINE_BYTES) await job;
    else c.executionCtx.waitUntil(job);
    const stored = await askUser(c, (user) => user.projectFile(projectId, id));
    // A small file that cannot be parsed is refused whole: its record and bytes go, and the answer says why.
    if (stored?.status === "failed" && bytes.byteLength <= INLINE_BYTES) {
      const uploads = await askUser(c, (user) => user.deleteProjectFile(projectId, id));
      deleteUploadsLater(c, uploads ?? []);
      throw new ApiError("unprocessable", stored.error ?? "This file could not be read");
    }
    const { r2Key: _key, ...shown } = stored ?? { ...file, status: "processing" as const, r2Key };
    return reply(c, "POST /api/projects/:projectId/files", { file: shown }, 201);
  })
  .get("/:projectId/files", async (c) => {
    const files = await askUser(c, (user) => user.projectFiles(c.req.param("projectId")));
    if (!files) throw noProject();
    return reply(c, "GET /api/projects/:projectId/files", { files });
  })
  .delete("/:projectId/files/:fileId", async (c) => {
    const uploads = await askUser(c, (user) => user.deleteProjectFile(c.req.param("projectId"), c.req.param("fileId")));
    if (!uploads) throw noFile();
    deleteUploadsLater(c, uploads);
    return c.body(null, 204);
  })
  .get("/:projectId/files/:fileId", async (c) => {
    const { projectId, fileId } = c.req.param();
    const file = await askUser(c, (user) => user.projectFile(projectId, fileId));
    const object = file ? await c.env.FILES.get(file.r2Key) : null;
    if (!file || !object) throw noFile();
    return fileResponse(object.body, file, "inline");
  })
  .post("/:projectId/files/:fileId/reprocess", async (c) => {
    const { projectId, fileId } = c.req.param();
    const file = await askUser(c, (user) => user.reprocessProjectFile(projectId, fileId));
    if (!file) throw noFile();
    const object = await askUser(c, (user) => user.projectFile(projectId, fileId)).then((f) => (f ? c.env.FILES.get(f.r2Key) : null));
    if (!object) {
      await askUser(c, (user) => user.projectFileFailed(projectId, fileId, "Its bytes are no longer stored; upload it again"));
    } else {
      c.executionCtx.waitUntil(object.arrayBuffer().then((b) => ingest(c, { projectId, fileId, mediaType: file.mediaType, name: file.name }, new Uint8Array(b))));
    }
    return reply(c, "POST /api/projects/:projectId/files/:fileId/reprocess", { file }, 202);
  })
  .get("/:projectId/search", async (c) => {
    const { q, limit } = queryParams(c, searchQuery);
    const results = await askUser(c, (user) => user.searchProject(c.req.param("projectId"), q, limit));
    if (!results) throw noProject();
    return reply(c, "GET /api/projects/:projectId/search", { results });
  });
