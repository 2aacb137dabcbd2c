import { Hono, type Context } from "hono";
import { validator } from "hono/validator";
import { z } from "zod";
import { MAX_CONTEXT_FILE_CHARS } from "../../protocol";
import { database } from "../db/client";
import {
  contextQuotaMessage,
  contextQuotaOf,
  deleteContextFile,
  getContextFile,
  isContextPath,
  listContextFiles,
  putContextFile,
  readContextFiles,
} from "../db/context-files";
import { configOf } from "../env";
import { deploymentModels } from "../invoker/client";
import { contextBudgetBytes, contextSettings } from "../plugins/context";
import { cutToFit, selectContextFiles } from "../plugins/context/format";
import { syncPluginConfigs } from "../plugins/registry";
import { announceChange } from "./announce";
import type { AppEnv } from "./app-env";
import { ApiError, notFound } from "./errors";
import { reply } from "./reply";
import { jsonBody } from "./validate";

/** The files the context plugin cuts to fit a thread on the default model (the context page shows them). */
async function filesCut(c: Context<AppEnv>): Promise<string[]> {
  const db = database(c.env);
  const config = configOf(c.env);
  const [files, plugins, models] = await Promise.all([readContextFiles(db, c.var.userId), syncPluginConfigs(db), deploymentModels(c.env, config)]);
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
    const db = database(c.env);
    const [files, cut] = await Promise.all([listContextFiles(db, c.var.userId), filesCut(c)]);
    return reply(c, "GET /api/context", { files, cut });
  })
  .get("/:path{.+}", pathParam, async (c) => {
    const file = await getContextFile(database(c.env), c.var.userId, c.req.valid("param").path);
    if (!file) throw notFound("No such context file");
    return reply(c, "GET /api/context/:path", { file: { path: file.path, content: file.content, bytes: file.bytes, updatedAt: file.updatedAt } });
  })
  .put("/:path{.+}", pathParam, jsonBody("PUT /api/context/:path", putBody), async (c) => {
    const { path } = c.req.valid("param");
    const { content } = c.req.valid("json");
    const quota = contextQuotaOf(configOf(c.env));
    const row = await putContextFile(database(c.env), c.var.userId, path, content, quota);
    if (!row) throw new ApiError("too_large", contextQuotaMessage(quota));
    await announceChange(c, c.var.userId);
    return reply(c, "PUT /api/context/:path", { file: { path: row.path, content: row.content, bytes: row.bytes, updatedAt: row.updatedAt } });
  })
  .delete("/:path{.+}", pathParam, async (c) => {
    if (!(await deleteContextFile(database(c.env), c.var.userId, c.req.valid("param").path))) throw notFound("No such context file");
    await announceChange(c, c.var.userId);
    return c.body(null, 204);
  });
