// Which plugins exist, in which order, and which are on. Order is code; enabled and settings are D1's,
// read through their versioned copy (config-copy.ts).
import { inArray } from "drizzle-orm";
import type { Db } from "../db/client";
import { pluginConfigs, type PluginConfigRow } from "../db/schema";
import type { PluginDefinition } from "./contract";
import { activityPlugin } from "./activity";
import { contextPlugin } from "./context";
import { timePlugin } from "./time";
import { delegationPlugin } from "./delegation";
import { metricsPlugin } from "./metrics";
import { titlesPlugin } from "./titles";
import { webPlugin } from "./web";
import { codePlugin } from "./code";
import { memoryPlugin } from "./memory";
import { validatorPlugin } from "./validator";
import { schedulePlugin } from "./schedule";
import { artifactsPlugin } from "./artifacts";
import { researchPlugin } from "./research";

export const PLUGINS: PluginDefinition<any>[] = [
  activityPlugin,
  contextPlugin,
  timePlugin,
  webPlugin,
  codePlugin,
  memoryPlugin,
  delegationPlugin,
  researchPlugin,
  validatorPlugin,
  titlesPlugin,
  schedulePlugin,
  artifactsPlugin,
  metricsPlugin,
];

export interface PluginConfig {
  name: string;
  version: string;
  enabled: boolean;
  order: number;
  settings: Record<string, unknown>;
}

export function defaultSettings(def: PluginDefinition<any>): Record<string, unknown> {
  return def.settings ? (def.settings.parse({}) as Record<string, unknown>) : {};
}

/**
 * Stored settings as the plugin's schema reads them: a row saved before a setting existed gets that
 * setting's default, and a row the schema no longer accepts falls back to the defaults.
 */
export function validSettings(def: PluginDefinition<any>, stored: Record<string, unknown> | null): Record<string, unknown> {
  if (!def.settings) return {};
  const parsed = def.settings.safeParse(stored ?? {});
  return parsed.success ? (parsed.data as Record<string, unknown>) : defaultSettings(def);
}

/** What is kept of a config (D1's row, or the copy's entry): the code gives the rest. */
export type StoredConfig = Pick<PluginConfigRow, "name" | "enabled" | "settings">;

/** The configs the code runs with, from the stored rows: missing rows get their defaults. */
export function configsFrom(rows: StoredConfig[], defs = PLUGINS): PluginConfig[] {
  const byName = new Map(rows.map((r) => [r.name, r]));
  return defs.map((def, order) => {
    const r = byName.get(def.name);
    return { name: def.name, version: def.version, enabled: r?.enabled ?? true, order, settings: validSettings(def, r?.settings ?? null) };
  });
}

/**
 * The stored configs, after making them match the code: rows for new plugins are created with their
 * default settings, rows of plugins that are gone are removed. Writes only when something differs.
 */
export async function syncPluginConfigs(db: Db, defs = PLUGINS): Promise<PluginConfig[]> {
  const rows = await db.select().from(pluginConfigs);
  const byName = new Map(rows.map((r) => [r.name, r]));
  const now = Date.now();
  const writes = [];
  for (const [order, def] of defs.entries()) {
    const row = byName.get(def.name);
    if (!row) {
      const fresh = { name: def.name, version: def.version, enabled: true, order, settings: defaultSettings(def), updatedAt: now };
      writes.push(db.insert(pluginConfigs).values(fresh).onConflictDoNothing());
      byName.set(def.name, fresh);
    } else if (row.order !== order || row.version !== def.version) {
      writes.push(db.update(pluginConfigs).set({ order, version: def.version }).where(inArray(pluginConfigs.name, [def.name])));
      byName.set(def.name, { ...row, order, version: def.version });
    }
  }
  const gone = rows.filter((r) => !defs.some((d) => d.name === r.name)).map((r) => r.name);
  if (gone.length) writes.push(db.delete(pluginConfigs).where(inArray(pluginConfigs.name, gone)));
  if (writes.length) await db.batch(writes as [(typeof writes)[number], ...typeof writes]);
  return configsFrom([...byName.values()], defs);
}
