import { Hono } from "hono";
import { z } from "zod";
import { ftsQuery } from "../user/directory";
import { askUser, type AppEnv } from "./app-env";
import { limitParam, queryParams } from "./validate";
import { reply } from "./reply";

const query = z.object({
  q: z.string().trim().min(1, "give words to search for").max(500).refine((q) => ftsQuery(q) !== null, "give words to search for"),
  limit: limitParam(20, 100),
  projectId: z.string().min(1).max(100).optional(),
});

export const searchRoutes = new Hono<AppEnv>().get("/", async (c) => {
  const { q, limit, projectId } = queryParams(c, query);
  return reply(c, "GET /api/search", { results: await askUser(c, (user) => user.search(q, limit, projectId)) });
});
