// API keys (PROTOCOL.md, "API keys"): made, listed and revoked by their user in the web app; kept by
// the user's own object (worker/user/api-access/), as a hash. The secret leaves once, in POST's answer.
import { Hono } from "hono";
import { z } from "zod";
import { MAX_API_KEY_NAME, MAX_API_KEYS } from "../../protocol";
import { askUser, type AppEnv } from "./app-env";
import { ApiError, notFound } from "./errors";
import { reply } from "./reply";
import { jsonBody } from "./validate";

const createBody = z.strictObject({ name: z.string().trim().min(1).max(MAX_API_KEY_NAME) });

export const apiKeyRoutes = new Hono<AppEnv>()
  .post("/", jsonBody("POST /api/keys", createBody), async (c) => {
    const made = await askUser(c, (user) => user.createApiKey(c.req.valid("json").name, MAX_API_KEYS));
    if (!made) throw new ApiError("rate_limited", `You have ${MAX_API_KEYS} keys: revoke one to make another`);
    // The secret is in this answer and nowhere else: no cache keeps it.
    c.header("Cache-Control", "no-store");
    return reply(c, "POST /api/keys", made, 201);
  })
  .get("/", async (c) => reply(c, "GET /api/keys", { keys: await askUser(c, (user) => user.apiKeys()) }))
  .delete("/:keyId", async (c) => {
    if (!(await askUser(c, (user) => user.revokeApiKey(c.req.param("keyId"))))) throw notFound("No such key");
    return c.body(null, 204);
  });
