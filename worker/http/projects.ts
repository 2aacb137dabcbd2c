// Projects (PROTOCOL.md, "Projects"): kept by the caller's own object (worker/user/projects/); their
// files' bytes in R2 under the caller's storage quota, uploaded as a message's attachments are.
import { Hono } from "hono";
import { z } from "zod";
import { ATTACHMENT_TYPES, MAX_INSTRUCTIONS_CHARS, maxBytesFor, type AttachmentType } from "../../protocol";
import { configOf } from "../env";
import { newId } from "../lib/ids";
import { askUser, type AppEnv } from "./app-env";
import { safeName } from "../lib/file-name";
import { deleteUploadsLater, readBytes } from "./attachments";
import { ApiError, notFound } from "./errors";
import { matchesType } from "../lib/sniff";
import { jsonBody, queryParams } from "./validate";
import { reply } from "./reply";

const name = z.string().trim().min(1).max(200);
const instructions = z.string().max(MAX_INSTRUCTIONS_CHARS);
const createBody = z.strictObject({ name, instructions: instructions.optional() });
const patchBody = z.strictObject({ name: name.optional(), instructions: instructions.optional() }).refine((b) => Object.keys(b).length > 0, "Give name or instructions");
const fileQuery = z.object({ name: z.string().trim().min(1).max(200).optional() });

const noProject = () => notFound("No such project");

export const projectRoutes = new Hono<AppEnv>()
  .post("/", jsonBody("POST /api/projects", createBody), async (c) => {
    const body = c.req.valid("json");
    const project = await askUser(c, (user) => user.createProject(body.name, body.instructions ?? ""));
    return reply(c, "POST /api/projects", { project }, 201);
  })
  .get("/", async (c) => reply(c, "GET /api/projects", { projects: await askUser(c, (user) => user.projects()) }))
  .get("/:projectId", async (c) => {
    const project = await askUser(c, (user) => user.project(c.req.param("projectId")));
    if (!project) throw noProject();
    return reply(c, "GET /api/projects/:projectId", { project });
  })
  .patch("/:projectId", jsonBody("PATCH /api/projects/:projectId", patchBody), async (c) => {
    const project = await askUser(c, (user) => user.updateProject(c.req.param("projectId"), c.req.valid("json")));
    if (!project) throw noProject();
    return reply(c, "PATCH /api/projects/:projectId", { project });
  })
  .delete("/:projectId", async (c) => {
    const uploads = await askUser(c, (user) => user.deleteProject(c.req.param("projectId")));
    if (!uploads) throw noProject();
    deleteUploadsLater(c, uploads);
    return c.body(null, 204);
  })
  .post("/:projectId/files", async (c) => {
    const projectId = c.req.param("projectId");
    const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (!(ATTACHMENT_TYPES as readonly string[]).includes(type)) {
      throw new ApiError("unsupported_media_type", "Send an image (PNG, JPEG, GIF, WebP), a PDF, plain text, Markdown, CSV, JSON or an Excel workbook (XLSX)");
    }
    const { name: fileName } = queryParams(c, fileQuery);
    if (!(await askUser(c, (user) => user.project(projectId)))) throw noProject();
    const bytes = await readBytes(c, maxBytesFor(type));
    if (bytes.byteLength === 0) throw new ApiError("invalid_request", "The file is empty", { issues: [] });
    if (!matchesType(type as AttachmentType, bytes)) throw new ApiError("unsupported_media_type", `These bytes are not ${type}`);
    const id = newId("pfl");
    const r2Key = `${c.var.userId}/projects/${projectId}/${id}`;
    const file = { id, projectId, name: safeName(fileName ?? "file"), mediaType: type, bytes: bytes.byteLength, createdAt: Date.now() };
    const quota = configOf(c.env).userStorageQuotaBytes;
    const kept = await askUser(c, (user) => user.addProjectFile({ ...file, r2Key }, quota));
    if (kept === null) throw noProject();
    if (!kept) throw new ApiError("too_large", `Your files would take more than your ${Math.round(quota / (1024 * 1024))} MiB of storage; delete some first`);
    try {
      await c.env.FILES.put(r2Key, bytes, { httpMetadata: { contentType: type } });
    } catch (err) {
      // Not stored: the record (and its charge) goes too.
      await askUser(c, (user) => user.deleteProjectFile(projectId, id));
      throw err;
    }
    return reply(c, "POST /api/projects/:projectId/files", { file }, 201);
  })
  .get("/:projectId/files", async (c) => {
    const files = await askUser(c, (user) => user.projectFiles(c.req.param("projectId")));
    if (!files) throw noProject();
    return reply(c, "GET /api/projects/:projectId/files", { files });
  })
  .delete("/:projectId/files/:fileId", async (c) => {
    const uploads = await askUser(c, (user) => user.deleteProjectFile(c.req.param("projectId"), c.req.param("fileId")));
    if (!uploads) throw notFound("No such file in this project");
    deleteUploadsLater(c, uploads);
    return c.body(null, 204);
  });
