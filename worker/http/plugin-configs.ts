// The plugin configs for the Worker's routes, from their versioned copy (plugins/config-copy.ts), held
// by this isolate. GET /api/plugins asks R2 whether the copy moved each time (a conditional read); the
// other routes use what is held and refresh it past REFRESH_MS without waiting. D1 is read only by a
// deployment's first read, which makes the copy; with R2 away, the routes answer with what is held, or
// with the plugins' defaults.
import type { Context } from "hono";
import { database } from "../db/client";
import type { Env } from "../env";
import { ConfigCopy, type VersionedConfigs } from "../plugins/config-copy";
import { configsFrom, type PluginConfig } from "../plugins/registry";
import type { AppEnv } from "./app-env";

const REFRESH_MS = 60_000;

let held: (VersionedConfigs & { at: number }) | null = null;

export const configCopy = (env: Env) => new ConfigCopy(env.FILES, () => database(env));

/** The configs as their copy has them now. */
export async function currentPluginConfigs(c: Context<AppEnv>): Promise<PluginConfig[]> {
  try {
    const read = await configCopy(c.env).read(held?.version);
    held = read === "unchanged" ? { ...held!, at: Date.now() } : { ...read, at: Date.now() };
  } catch {
    // R2 (or, for the first copy, D1) away: what is held, or the defaults.
  }
  return configsFrom(held?.stored ?? []);
}

/** What this isolate holds; only its first need waits. */
export async function knownPluginConfigs(c: Context<AppEnv>): Promise<PluginConfig[]> {
  if (!held) return currentPluginConfigs(c);
  if (Date.now() - held.at > REFRESH_MS) c.executionCtx.waitUntil(currentPluginConfigs(c));
  return configsFrom(held.stored);
}

/** What a change just published. */
export function rememberPluginConfigs(published: VersionedConfigs): void {
  held = { ...published, at: Date.now() };
}
