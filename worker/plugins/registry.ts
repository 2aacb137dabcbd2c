// Which plugins exist, in which order, and which are on. Order is code; enabled and settings are D1.
import { inArray } from "drizzle-orm";
import type { Db } from "../db/client";
import { pluginConfigs } from "../db/schema";
import type { ModelTool, ToolOutcome } from "../invoker/types";
import type { HookName, Hooks, Logger, PluginContext, PluginDefinition, ToolCall, ToolDefinition } from "./contract";
import type { HookEntry } from "./runners";
import { activityPlugin } from "./activity";
import { contextPlugin } from "./context";
import { timePlugin } from "./time";
import { webPlugin } from "./web";
import { delegationPlugin } from "./delegation";
import { metricsPlugin } from "./metrics";

export const PLUGINS: PluginDefinition<any>[] = [
  activityPlugin,
  contextPlugin,
  timePlugin,
  webPlugin,
  delegationPlugin,
  metricsPlugin,
];

export const TOOL_SEPARATOR = "__";
const MAX_TOOL_RESULT_CHARS = 100_000;

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
function validSettings(def: PluginDefinition<any>, stored: Record<string, unknown> | null): Record<string, unknown> {
  if (!def.settings) return {};
  const parsed = def.settings.safeParse(stored ?? {});
  return parsed.success ? (parsed.data as Record<string, unknown>) : defaultSettings(def);
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
  return defs.map((d) => {
    const r = byName.get(d.name)!;
    return { name: r.name, version: r.version, enabled: r.enabled, order: r.order, settings: validSettings(d, r.settings) };
  });
}

interface Registered {
  def: PluginDefinition<any>;
  ctx: PluginContext<any>;
  hooks: Hooks;
  config: PluginConfig;
}

/** The plugins of one thread object: their hooks, registered once, filtered by what is enabled. */
export class PluginHost {
  private readonly plugins: Registered[];
  private entryCache = new Map<HookName, HookEntry<any>[]>();
  private toolIndex = new Map<string, { plugin: Registered; tool: ToolDefinition }>();
  private modelTools: ModelTool[] = [];

  constructor(
    defs: PluginDefinition<any>[],
    makeContext: (def: PluginDefinition<any>, settings: () => Record<string, unknown>) => PluginContext<any>,
    private readonly logger: Logger,
    private readonly defaultTimeoutMs: number,
  ) {
    this.plugins = defs.map((def, order) => {
      const entry = {
        def,
        hooks: {} as Hooks,
        config: { name: def.name, version: def.version, enabled: true, order, settings: defaultSettings(def) },
      } as Registered;
      entry.ctx = makeContext(def, () => entry.config.settings);
      entry.hooks = def.register(entry.ctx);
      return entry;
    });
    this.rebuild();
  }

  /** Runs every plugin's `start` once; later calls answer the same promise. */
  start(): Promise<void> {
    this.started ??= this.lifecycle("start");
    return this.started;
  }

  async stop(): Promise<void> {
    if (this.started) await this.lifecycle("stop");
    this.started = null;
  }

  private started: Promise<void> | null = null;

  private async lifecycle(phase: "start" | "stop"): Promise<void> {
    for (const p of this.plugins) {
      try {
        await p.def[phase]?.(p.ctx);
      } catch (err) {
        this.logger.error(`plugin ${phase} failed`, { plugin: p.def.name, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  /** Applies configs read from D1; unknown names are ignored, missing ones keep their defaults. */
  apply(configs: PluginConfig[]): void {
    for (const c of configs) {
      const p = this.plugins.find((x) => x.def.name === c.name);
      if (p) p.config = c;
    }
    this.rebuild();
  }

  entries<K extends HookName>(hook: K): HookEntry<NonNullable<Hooks[K]>>[] {
    return this.entryCache.get(hook) ?? [];
  }

  tools(): ModelTool[] {
    return this.modelTools;
  }

  async runTool(name: string, input: unknown, call: ToolCall): Promise<ToolOutcome> {
    const found = this.toolIndex.get(name);
    if (!found) return { content: `Unknown tool: ${name}`, isError: true };
    try {
      const out = await found.tool.handler(input ?? {}, call, found.plugin.ctx);
      const outcome = typeof out === "string" ? { content: out, isError: false } : out;
      return outcome.content.length > MAX_TOOL_RESULT_CHARS
        ? { ...outcome, content: `${outcome.content.slice(0, MAX_TOOL_RESULT_CHARS)}\n[truncated]` }
        : outcome;
    } catch (err) {
      this.logger.warn("tool failed", { tool: name, error: err instanceof Error ? err.message : String(err) });
      return { content: `Tool ${name} failed: ${err instanceof Error ? err.message : String(err)}`, isError: true };
    }
  }

  private rebuild(): void {
    const enabled = this.plugins.filter((p) => p.config.enabled);
    this.entryCache = new Map();
    for (const p of enabled) {
      for (const [hook, fn] of Object.entries(p.hooks) as [HookName, Function][]) {
        if (typeof fn !== "function") continue;
        const list = this.entryCache.get(hook) ?? [];
        list.push({ plugin: p.def.name, fn: fn.bind(p.hooks), timeoutMs: p.def.hookTimeoutMs?.[hook] ?? this.defaultTimeoutMs });
        this.entryCache.set(hook, list);
      }
    }
    this.toolIndex = new Map();
    this.modelTools = [];
    for (const p of enabled) {
      for (const tool of p.def.tools ?? []) {
        const name = `${p.def.name}${TOOL_SEPARATOR}${tool.name}`;
        this.toolIndex.set(name, { plugin: p, tool });
        this.modelTools.push({ name, description: tool.description, input_schema: tool.inputSchema });
      }
    }
  }
}
