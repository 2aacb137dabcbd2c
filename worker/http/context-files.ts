import { Hono, type Context } from "hono";
import { validator } from "hono/validator";
import { z } from "zod";
import { isContextPath, MAX_CONTEXT_FILE_CHARS, type ContextFile } from "../../protocol";
import { configOf } from "../env";
import { deploymentModels } from "../invoker/client";
import { contextBudgetBytes, contextSettings } from "../plugins/context";
import { cutToFit, selectContextFiles } from "../plugins/context/format";
import { contextQuotaMessage, contextQuotaOf } from "../lib/context-quota";
import { askUser, type AppEnv } from "./app-env";
import { ApiError, notFound } from "./errors";
import { knownPluginConfigs } from "./plugin-configs";
import { reply } from "./reply";
import { jsonBody } from "./validate";

/** The files the context plugin cuts to fit a thread on the default model (the context page shows them). */
async function filesCut(c: Context<AppEnv>, files: ContextFile[]): Promise<string[]> {
  const config = configOf(c.env);
  const [plugins, models] = await Promise.all([knownPluginConfigs(c), deploymentModels(c.env, config)]);
  const settings = contextSettings.parse(plugins.find((p) => p.name === "context")?.settings ?? {});
  const window = config.contextTokenBudget ?? models.find((m) => m.id === config.defaultModel)?.contextWindow ?? 200_000;
  return cutToFit(selectContextFiles(files), settings.maxFileBytes, contextBudgetBytes(window, settings.maxShare)).cut;
}

const putBody = z.strictObject({ content: z.string().max(MAX_CONTEXT_FILE_CHARS) });

function contextPath(raw: string): string {
  let path = "";
  try {
    path = decodeURIComponent(raw);
  } catch {
    // A malformed escape is the client's mistake: it falls through to the 400 below.
  }
  if (!isContextPath(path)) throw new ApiError("invalid_request", "Invalid context file path", { issues: [{ path: "path", message: "invalid path" }] });
  return path;
}

// A validator, so that on PUT a bad path is answered before the body is read.
const pathParam = validator("param", (_params, c) => ({ path: contextPath(new URL(c.req.url).pathname.replace(/^\/api\/context\//, "")) }));

export const contextFileRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const files = await askUser(c, (user) => user.contextForRun());
    const cut = await filesCut(c, files);
    return reply(c, "GET /api/context", { files: files.map(({ path, bytes, updatedAt }) => ({ path, bytes, updatedAt })), cut });
  })
  .get("/:path{.+}", pathParam, async (c) => {
    const { path } = c.req.valid("param");
    const file = await askUser(c, (user) => user.contextFile(path));
    if (!file) throw notFound("No such context file");
    return reply(c, "GET /api/context/:path", { file });
  })
  .put("/:path{.+}", pathParam, jsonBody("PUT /api/context/:path", putBody), async (c) => {
    const { path } = c.req.valid("param");
    const { content } = c.req.valid("json");
    const quota = contextQuotaOf(configOf(c.env));
    const file = await askUser(c, (user) => user.putContextFile(path, content, quota));
    if (!file) throw new ApiError("too_large", contextQuotaMessage(quota));
    return reply(c, "PUT /api/context/:path", { file });
  })
  .delete("/:path{.+}", pathParam, async (c) => {
    const { path } = c.req.valid("param");
    const gone = await askUser(c, (user) => user.deleteContextFiles([path]));
    if (gone.length === 0) throw notFound("No such context file");
    return c.body(null, 204);
  });
