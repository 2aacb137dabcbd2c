// The plugins of one thread object: their hooks, registered once, filtered by what is enabled, and
// run through the runner HOOK_RUNNERS names for each hook.
import type { BuiltinTool, ModelTool, ToolOutcome } from "../invoker/types";
import type { Logger } from "../lib/logger";
import {
  HOOK_RUNNERS,
  type BuiltinToolDefinition,
  type ChainHook,
  type FirstTrueHook,
  type HookArgs,
  type HookName,
  type Hooks,
  type NotifyHook,
  type PluginContext,
  type PluginDefinition,
  type ToolCall,
  type ToolDefinition,
  type ToolRequest,
  type ValidateHook,
} from "./contract";
import { defaultSettings, type PluginConfig } from "./registry";
import { runChain, runFirstTrue, runNotify, runValidate, type HookEntry } from "./runners";

export const TOOL_SEPARATOR = "__";
const MAX_TOOL_RESULT_CHARS = 100_000;

interface Registered {
  def: PluginDefinition<any>;
  ctx: PluginContext<any>;
  hooks: Hooks;
  config: PluginConfig;
}

type ChainValue<K extends ChainHook> = HookArgs<K>[0];
type ChainRest<K extends ChainHook> = HookArgs<K> extends [unknown, ...infer R] ? R : never;

export class PluginHost {
  private plugins: Registered[] = [];
  private entryCache = new Map<HookName, HookEntry<any>[]>();
  private toolIndex = new Map<string, { plugin: Registered; handler: ToolDefinition["handler"]; asks?: boolean }>();
  private modelTools: ModelTool[] = [];
  /** Builtin tools whose definition each request makes (BuiltinToolDefinition.perRequest). */
  private perRequest: { plugin: Registered; builtin: BuiltinToolDefinition }[] = [];
  /** Tools whose description their plugin makes from the thread, by name. */
  private described = new Map<string, () => string>();
  private started: Promise<void> | null = null;

  constructor(
    private readonly defs: PluginDefinition<any>[],
    private readonly logger: Logger,
    private readonly defaultTimeoutMs: number,
  ) {}

  /**
   * Each plugin registers its hooks with the context it is lent. Apart from construction because a
   * context reaches parts that are built after the host (the thread's intake, which runs through it).
   */
  register(contextFor: (def: PluginDefinition<any>, settings: () => Record<string, unknown>, host: PluginHost) => PluginContext<any>): this {
    this.plugins = this.defs.map((def, order) => {
      const config = { name: def.name, version: def.version, enabled: true, order, settings: defaultSettings(def) };
      const entry = { def, config } as Registered;
      entry.ctx = contextFor(def, () => entry.config.settings, this);
      entry.hooks = def.register(entry.ctx);
      return entry;
    });
    this.rebuild();
    return this;
  }

  // --- the four runners, typed by the hook table -------------------------------------------

  /** Synchronous while the hooks are (sockets keep seq order); else a promise for the rest. */
  notify<K extends NotifyHook>(hook: K, ...args: HookArgs<K>): void | Promise<void> {
    return runNotify(this.entries(hook) as HookEntry<any>[], hook, args, this.logger);
  }

  chain<K extends ChainHook>(hook: K, initial: ChainValue<K>, rest: ChainRest<K>, isValid?: (v: unknown) => v is ChainValue<K>) {
    return runChain(this.entries(hook) as HookEntry<any>[], hook, initial, rest as unknown[], this.logger, isValid);
  }

  /** Answers the plugin that took it, or null. */
  firstTrue<K extends FirstTrueHook>(hook: K, ...args: HookArgs<K>): Promise<string | null> {
    return runFirstTrue(this.entries(hook) as HookEntry<any>[], hook, args, this.logger);
  }

  validate<K extends ValidateHook>(hook: K, ...args: HookArgs<K>) {
    return runValidate(this.entries(hook) as HookEntry<any>[], hook, args, this.logger);
  }

  /** The enabled plugins' hooks of one name, in registration order (what the runners are given). */
  entries<K extends HookName>(hook: K): HookEntry<NonNullable<Hooks[K]>>[] {
    return this.entryCache.get(hook) ?? [];
  }

  // --- lifecycle and configuration -----------------------------------------------------------

  /** Runs every plugin's `start` once; later calls answer the same promise. */
  start(): Promise<void> {
    this.started ??= this.lifecycle("start");
    return this.started;
  }

  async stop(): Promise<void> {
    if (this.started) await this.lifecycle("stop");
    this.started = null;
  }

  /** Applies the stored configs; unknown names are ignored, missing ones keep their defaults. */
  apply(configs: PluginConfig[]): void {
    for (const c of configs) {
      const p = this.plugins.find((x) => x.def.name === c.name);
      if (p) p.config = c;
    }
    this.rebuild();
  }

  // --- tools ---------------------------------------------------------------------------------

  /**
   * The run's tools; a description a plugin makes from its thread is made now (the thread may have
   * changed), and so is a builtin made for each request, after the others (the cached prefix keeps
   * its order for the same thread and model).
   */
  tools(request?: ToolRequest): ModelTool[] {
    const described = this.described.size === 0 ? this.modelTools : this.modelTools.map((t) => {
      const describe = this.described.get(t.name);
      return describe ? { ...t, description: describe() } : t;
    });
    if (!request || this.perRequest.length === 0) return described;
    const made = this.perRequest.map(({ plugin, builtin }) => builtin.definition(plugin.config.settings, request));
    return [...described, ...made.filter((d): d is BuiltinTool => d !== null)];
  }

  /** Whether the tool's calls wait for the user's approval first (ToolDefinition.asks). */
  asks(name: string): boolean {
    return this.toolIndex.get(name)?.asks === true;
  }

  async runTool(name: string, input: unknown, call: ToolCall): Promise<ToolOutcome> {
    const found = this.toolIndex.get(name);
    if (!found) return { content: `Unknown tool: ${name}`, isError: true };
    try {
      const out = await found.handler(input ?? {}, call, found.plugin.ctx);
      const outcome = typeof out === "string" ? { content: out, isError: false } : out;
      return outcome.content.length > MAX_TOOL_RESULT_CHARS
        ? { ...outcome, content: `${outcome.content.slice(0, MAX_TOOL_RESULT_CHARS)}\n[truncated]` }
        : outcome;
    } catch (err) {
      this.logger.warn("tool failed", { tool: name, error: err instanceof Error ? err.message : String(err) });
      return { content: `Tool ${name} failed: ${err instanceof Error ? err.message : String(err)}`, isError: true };
    }
  }

  // --- internals -----------------------------------------------------------------------------

  private async lifecycle(phase: "start" | "stop"): Promise<void> {
    for (const p of this.plugins) {
      try {
        await p.def[phase]?.(p.ctx);
      } catch (err) {
        this.logger.error(`plugin ${phase} failed`, { plugin: p.def.name, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  private rebuild(): void {
    const enabled = this.plugins.filter((p) => p.config.enabled);
    this.entryCache = new Map();
    for (const p of enabled) {
      for (const [hook, fn] of Object.entries(p.hooks) as [HookName, Function][]) {
        if (typeof fn !== "function" || !(hook in HOOK_RUNNERS)) continue;
        const list = this.entryCache.get(hook) ?? [];
        list.push({ plugin: p.def.name, fn: fn.bind(p.hooks), timeoutMs: p.def.hookTimeoutMs?.[hook] ?? this.defaultTimeoutMs });
        this.entryCache.set(hook, list);
      }
    }
    this.toolIndex = new Map();
    this.modelTools = [];
    this.perRequest = [];
    this.described = new Map();
    for (const p of enabled) {
      for (const tool of p.def.tools ?? []) {
        const name = `${p.def.name}${TOOL_SEPARATOR}${tool.name}`;
        this.toolIndex.set(name, { plugin: p, handler: tool.handler, asks: tool.asks });
        this.modelTools.push({ name, description: tool.description, input_schema: tool.inputSchema });
        const { describe } = tool;
        if (describe) this.described.set(name, () => describe.call(tool, p.ctx));
      }
      for (const builtin of p.def.builtinTools ?? []) {
        if (builtin.perRequest) {
          this.perRequest.push({ plugin: p, builtin });
          continue;
        }
        const definition = builtin.definition(p.config.settings);
        if (!definition) continue;
        this.modelTools.push(definition);
        if (builtin.handler) this.toolIndex.set(definition.name, { plugin: p, handler: builtin.handler });
      }
    }
  }
}
