// Files sent with messages: the raw bytes in, checked (type, size, the user's quota), kept in R2, and
// registered with the thread's object, which resolves them when a message names them.
import { Hono, type Context } from "hono";
import { z } from "zod";
import { ATTACHMENT_TYPES, maxBytesFor, type AttachmentType } from "../../protocol";
import { configOf } from "../env";
import { safeName } from "../lib/file-name";
import { newId } from "../lib/ids";
import { askUser, callerOf, fromRoom, roomStub, type AppEnv } from "./app-env";
import { ApiError } from "./errors";
import { fileResponse } from "./file-response";
import { matchesType } from "../lib/sniff";
import { looksLike } from "../lib/extract";
import { consoleLogger } from "../lib/logger";
import { deleteUploads } from "../invoker/client";
import { queryParams } from "./validate";
import { reply } from "./reply";

const query = z.object({ name: z.string().trim().min(1).max(200).optional() });

/** The body, at most `limit` bytes (a stream without Content-Length is counted as it comes). */
export async function readBytes(c: Context<AppEnv>, limit: number): Promise<Uint8Array> {
  const tooLarge = () => new ApiError("too_large", `This file is larger than ${limit / (1024 * 1024)} MiB`);
  if (Number(c.req.header("content-length") ?? 0) > limit) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = c.req.raw.body?.getReader();
  for (;;) {
    const { done, value } = reader ? await reader.read() : { done: true, value: undefined };
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader!.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) bytes.set(chunk, (at += chunk.byteLength) - chunk.byteLength);
  return bytes;
}

/** A name safe for Content-Disposition: no quotes, slashes or control characters. */

export const attachmentRoutes = new Hono<AppEnv>()
  .post("/:id/attachments", async (c) => {
    const who = callerOf(c);
    const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (!(ATTACHMENT_TYPES as readonly string[]).includes(type)) {
      throw unsupportedType();
    }
    const { name } = queryParams(c, query);
    fromRoom(await roomStub(c.env, who.threadId).get(who));
    const bytes = await readBytes(c, maxBytesFor(type));
    if (bytes.byteLength === 0) throw new ApiError("invalid_request", "The file is empty", { issues: [] });
    if (!matchesType(type as AttachmentType, bytes)) throw new ApiError("unsupported_media_type", `These bytes are not ${type}`);
    if (!type.startsWith("image/") && !looksLike(type, bytes)) throw new ApiError("unprocessable", `This file could not be read as ${type}`);

    const id = newId("att");
    const r2Key = `${who.userId}/${who.threadId}/${id}`;
    const file = { id, threadId: who.threadId, name: safeName(name ?? "file"), mediaType: type, bytes: bytes.byteLength, r2Key, createdAt: Date.now() };
    // Charged against the quota by the user's object in one step, so uploads made at once cannot pass it together.
    const quota = configOf(c.env).userStorageQuotaBytes;
    if (!(await askUser(c, (user) => user.chargeFile({ ...file, ownerId: who.userId }, quota)))) {
      throw new ApiError("too_large", `Your files would take more than your ${Math.round(quota / (1024 * 1024))} MiB of storage; delete some threads' files first`);
    }
    try {
      await c.env.FILES.put(r2Key, bytes, { httpMetadata: { contentType: type } });
    } catch (err) {
      // Not stored: the charge goes too, so a failed upload takes no quota and leaves no record.
      await askUser(c, (user) => user.releaseFile(id));
      throw err;
    }
    let attachment;
    try {
      attachment = fromRoom(await roomStub(c.env, who.threadId).addFile(who, file));
    } catch (err) {
      // The thread did not take it (deleted meanwhile, or away): no bytes and no charge are left behind.
      await c.env.FILES.delete(r2Key);
      await askUser(c, (user) => user.releaseFile(id));
      throw err;
    }
    return reply(c, "POST /api/threads/:id/attachments", { attachment }, 201);
  })
  .get("/:id/attachments/:attachmentId", async (c) => {
    const file = fromRoom(await roomStub(c.env, c.req.param("id")).file(callerOf(c), c.req.param("attachmentId")));
    const object = await c.env.FILES.get(file.r2Key);
    if (!object) throw new ApiError("not_found", "The file's bytes are gone");
    return fileResponse(object.body, file, "inline");
  });

/** A type POST attachments and POST project files do not take. */
export const unsupportedType = () =>
  new ApiError("unsupported_media_type", "Send an image (PNG, JPEG, GIF, WebP), a PDF, a Word document, a workbook or a deck (DOCX, XLSX, PPTX), HTML, plain text or code, Markdown, CSV or JSON");

/** A deleted thread's files in R2 (their records go with the thread, in the user's object). */
export async function deleteThreadFiles(c: Context<AppEnv>, ownerId: string, threadIds: string[]): Promise<void> {
  for (const threadId of threadIds) {
    const prefix = `${ownerId}/${threadId}/`;
    for (let cursor: string | undefined; ; ) {
      const listed = await c.env.FILES.list({ prefix, cursor });
      if (listed.objects.length) await c.env.FILES.delete(listed.objects.map((o) => o.key));
      if (!listed.truncated) break;
      cursor = listed.cursor;
    }
  }
}

/** Deleted files' uploads to the Files API (the code's container had them), deleted after the answer. */
export function deleteUploadsLater(c: Context<AppEnv>, uploads: string[]): void {
  if (uploads.length) c.executionCtx.waitUntil(deleteUploads(c.env, configOf(c.env), uploads, consoleLogger("http")));
}
