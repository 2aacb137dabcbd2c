// The plugin configs as a route that is not the plugins' own needs them (the context page's cut): the
// deployment's, in D1, held by this isolate and read again after REFRESH_MS without the route waiting
// for it. Only an isolate's first need waits; with D1 away it answers with the plugins' defaults.
import type { Context } from "hono";
import { database } from "../db/client";
import { configsFrom, syncPluginConfigs, type PluginConfig } from "../plugins/registry";
import type { AppEnv } from "./app-env";

const REFRESH_MS = 60_000;

let known: { configs: PluginConfig[]; at: number } | null = null;

export async function knownPluginConfigs(c: Context<AppEnv>): Promise<PluginConfig[]> {
  if (!known) return read(c);
  if (Date.now() - known.at > REFRESH_MS) c.executionCtx.waitUntil(read(c));
  return known.configs;
}

/** What the plugins route just read. */
export function rememberPluginConfigs(configs: PluginConfig[]): void {
  known = { configs, at: Date.now() };
}

/** A config changed: the next need reads again. */
export function forgetPluginConfigs(): void {
  known = null;
}

async function read(c: Context<AppEnv>): Promise<PluginConfig[]> {
  try {
    rememberPluginConfigs(await syncPluginConfigs(database(c.env)));
    return known!.configs;
  } catch {
    return known?.configs ?? configsFrom([]);
  }
}
