import { Hono, type MiddlewareHandler } from "hono";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { database } from "../db/client";
import { configOf } from "../env";
import { pluginConfigs } from "../db/schema";
import { TOOL_SEPARATOR } from "../plugins/host";
import { PLUGINS, syncPluginConfigs, type PluginConfig } from "../plugins/registry";
import { announceChange } from "./announce";
import { configCopy, currentPluginConfigs, rememberPluginConfigs } from "./plugin-configs";
import { isAdmin } from "./auth";
import { ApiError, notFound, zodIssues } from "./errors";
import type { AppEnv } from "./app-env";
import { jsonBody } from "./validate";
import { reply } from "./reply";

const patchBody = z
  .strictObject({ enabled: z.boolean().optional(), settings: z.record(z.string(), z.unknown()).optional() })
  .refine((b) => b.enabled !== undefined || b.settings !== undefined, "Give enabled or settings");

function describe(config: PluginConfig) {
  const def = PLUGINS.find((p) => p.name === config.name)!;
  return {
    name: config.name,
    version: config.version,
    description: def.description ?? "",
    enabled: config.enabled,
    order: config.order,
    settings: config.settings,
    tools: [
      ...(def.tools ?? []).map((t) => ({ name: `${def.name}${TOOL_SEPARATOR}${t.name}`, description: t.description })),
      // The API's own tools keep their names (web_search, web_fetch, memory); listed when offered.
      ...(def.builtinTools ?? []).flatMap((t) => {
        const definition = t.definition(config.settings);
        return definition ? [{ name: definition.name, description: t.description }] : [];
      }),
    ],
  };
}

// Plugins are the whole deployment's: one user may not change them for everyone. Checked before the
// body: whatever a non-admin sends, the answer is 403.
const adminOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!isAdmin(c.env, c.var.userId)) throw new ApiError("forbidden", "Only an admin (ADMIN_USERS) may change plugins");
  await next();
};

export const pluginRoutes = new Hono<AppEnv>()
  // From the configs' copy, not D1: the list answers with D1 away.
  .get("/", async (c) => reply(c, "GET /api/plugins", { plugins: (await currentPluginConfigs(c)).map(describe) }))
  .patch("/:name", adminOnly, jsonBody("PATCH /api/plugins/:name", patchBody), async (c) => {
    const body = c.req.valid("json");
    const db = database(c.env);
    const config = (await syncPluginConfigs(db)).find((p) => p.name === c.req.param("name"));
    if (!config) throw notFound("No such plugin");
    const def = PLUGINS.find((p) => p.name === config.name)!;
    let settings = config.settings;
    if (body.settings) {
      // Settings are merged over the current ones, then the whole is checked by the plugin's schema.
      const merged = { ...config.settings, ...body.settings };
      const parsed = def.settings ? def.settings.safeParse(merged) : { success: true as const, data: {} };
      if (!parsed.success) {
        throw new ApiError("invalid_request", `Invalid settings for ${def.name}`, { issues: zodIssues(parsed.error) });
      }
      if (!def.settings && Object.keys(body.settings).length) {
        throw new ApiError("invalid_request", `${def.name} has no settings`, { issues: [] });
      }
      settings = parsed.data as Record<string, unknown>;
    }
    const enabled = body.enabled ?? config.enabled;
    if (config.name === "metrics" && !enabled && configOf(c.env).dailyCostUsd !== null) {
      throw new ApiError("conflict", "The daily spend cap (USER_DAILY_COST_USD) counts on metrics; remove the cap first");
    }
    await db.update(pluginConfigs).set({ enabled, settings, updatedAt: Date.now() }).where(eq(pluginConfigs.name, config.name));
    // The copy everyone reads, from D1 as it is now (with another admin's change made meanwhile).
    rememberPluginConfigs(await configCopy(c.env).publish(await syncPluginConfigs(db)));
    await announceChange(c);
    return reply(c, "PATCH /api/plugins/:name", { plugin: describe({ ...config, enabled, settings }) });
  });
