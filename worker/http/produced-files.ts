// The files a thread's code produced (PROTOCOL.md, "Code execution"): listed by the thread's object,
// their bytes read from R2 and given as a download (never shown inline at the app's origin).
import { Hono } from "hono";
import type { ProducedFile } from "../../protocol";
import { callerOf, fromRoom, roomStub, type AppEnv } from "./app-env";
import { ApiError } from "./errors";
import { fileResponse } from "./file-response";
import { reply } from "./reply";

export const producedFileRoutes = new Hono<AppEnv>()
  .get("/:id/files", async (c) => {
    const files = fromRoom(await roomStub(c.env, c.req.param("id")).produced(callerOf(c))) as ProducedFile[];
    return reply(c, "GET /api/threads/:id/files", { files });
  })
  .get("/:id/files/:fileId", async (c) => {
    const file = fromRoom(await roomStub(c.env, c.req.param("id")).producedFile(callerOf(c), c.req.param("fileId")));
    const object = await c.env.FILES.get(file.r2Key);
    if (!object) throw new ApiError("not_found", "The file's bytes are gone");
    return fileResponse(object.body, file, "attachment");
  });
