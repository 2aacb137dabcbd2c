import { Hono, type Context } from "hono";
import { configOf } from "../env";
import { deploymentModels } from "../invoker/client";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";
import { reply } from "./reply";

/** GET /api/models: the models a thread may use, as the Models API reports them. */
export const modelRoutes = new Hono<AppEnv>().get("/", async (c) => {
  const config = configOf(c.env);
  return reply(c, "GET /api/models", { models: await deploymentModels(c.env, config), default: config.defaultModel });
});

/** A thread's model must be one the deployment offers; anything else is a 400 naming the field. */
export async function checkModel(c: Context<AppEnv>, model: string | undefined): Promise<void> {
  if (model === undefined) return;
  const models = await deploymentModels(c.env, configOf(c.env));
  if (!models.some((m) => m.id === model)) {
    throw new ApiError("invalid_request", `Unknown model ${JSON.stringify(model.slice(0, 100))}; see GET /api/models`, {
      issues: [{ path: "model", message: `not one of ${models.map((m) => m.id).join(", ")}`, code: "invalid_value" }],
    });
  }
}
