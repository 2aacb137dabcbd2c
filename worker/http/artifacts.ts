// Artifacts (PROTOCOL.md, "Artifacts"): the current branch's, from the thread's object, which keeps them.
import { Hono } from "hono";
import { z } from "zod";
import type { Artifact, ArtifactInfo } from "../../protocol";
import { callerOf, fromRoom, roomStub, type AppEnv } from "./app-env";
import { queryParams } from "./validate";
import { reply } from "./reply";

const query = z.object({ version: z.coerce.number().int().min(1).optional() });

export const artifactRoutes = new Hono<AppEnv>()
  .get("/:id/artifacts", async (c) => {
    const artifacts = fromRoom(await roomStub(c.env, c.req.param("id")).artifacts(callerOf(c))) as ArtifactInfo[];
    return reply(c, "GET /api/threads/:id/artifacts", { artifacts });
  })
  .get("/:id/artifacts/:artifactId", async (c) => {
    const { version } = queryParams(c, query);
    const one = { id: c.req.param("artifactId"), ...(version !== undefined ? { version } : {}) };
    const artifact = fromRoom(await roomStub(c.env, c.req.param("id")).artifacts(callerOf(c), one)) as Artifact;
    return reply(c, "GET /api/threads/:id/artifacts/:artifactId", { artifact });
  });
