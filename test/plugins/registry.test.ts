// The registry: plugin_configs kept in step with the code (syncPluginConfigs), the per-object
// PluginHost (enabled filter, timeouts, tools), and /api/plugins (list, enable, settings).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { drizzle } from "drizzle-orm/d1";
import { database, meteredD1, newUsage } from "../../worker/db/client";
import * as schema from "../../worker/db/schema";
import type { Hooks, PluginContext, PluginDefinition, ToolCall } from "../../worker/plugins/contract";
import { PluginHost } from "../../worker/plugins/host";
import { defaultSettings, PLUGINS, syncPluginConfigs, type PluginConfig } from "../../worker/plugins/registry";
import { configCopy } from "../../worker/http/plugin-configs";
import { api, json } from "../helpers";
import { callApp } from "../http/util";
import { env, recordingLogger } from "./util";

const db = () => database(env);

interface Row {
  name: string;
  version: string;
  enabled: number;
  order: number;
  settings: string;
  updated_at: number;
}

async function rows(): Promise<Row[]> {
  const { results } = await env.DB.prepare('SELECT * FROM plugin_configs ORDER BY "order", name').all<Row>();
  return results;
}

const DOCUMENTED_ORDER = ["activity", "context", "time", "delegation", "metrics"];

async function patch(name: string, body: unknown) {
  return api(`/api/plugins/${name}`, { method: "PATCH", body });
}

/** Puts a plugin's stored config back to its defaults, and publishes the copy everyone reads. */
async function reset(name: string) {
  const def = PLUGINS.find((p) => p.name === name)!;
  await env.DB.prepare("UPDATE plugin_configs SET enabled = 1, settings = ? WHERE name = ?")
    .bind(JSON.stringify(defaultSettings(def)), name)
    .run();
  await configCopy(env).publish(await syncPluginConfigs(db()));
}

describe("syncPluginConfigs", () => {
  beforeEach(async () => {
    await env.DB.prepare("DELETE FROM plugin_configs").run();
  });

  it("creates a row per plugin, in registry order, enabled, with its schema's default settings", async () => {
    const before = Date.now();
    const configs = await syncPluginConfigs(db());
    const names = PLUGINS.map((p) => p.name);
    expect(configs.map((c) => c.name)).toEqual(names);
    // The documented plugins, in the documented relative order (others may sit between them).
    const known = names.filter((n) => DOCUMENTED_ORDER.includes(n));
    expect(known).toEqual(DOCUMENTED_ORDER);
    expect(names[0]).toBe("activity");
    expect(names[names.length - 1]).toBe("metrics");

    configs.forEach((c, i) => {
      expect(c).toEqual({ name: PLUGINS[i].name, version: PLUGINS[i].version, enabled: true, order: i, settings: defaultSettings(PLUGINS[i]) });
    });
    expect(configs.find((c) => c.name === "time")!.settings).toEqual({ timeZone: "UTC" });
    expect(configs.find((c) => c.name === "context")!.settings).toEqual({ historyLimit: 50, maxFileBytes: 50_000, maxShare: 0.25 });
    for (const name of ["activity", "metrics"]) expect(configs.find((c) => c.name === name)!.settings).toEqual({});

    const stored = await rows();
    expect(stored.map((r) => r.name)).toEqual(names);
    stored.forEach((r, i) => {
      expect(r.order).toBe(i);
      expect(r.enabled).toBe(1);
      expect(r.version).toBe(PLUGINS[i].version);
      expect(JSON.parse(r.settings)).toEqual(defaultSettings(PLUGINS[i]));
      expect(r.updated_at).toBeGreaterThanOrEqual(before);
    });
  });

  it("removes the rows of plugins the code no longer has", async () => {
    await syncPluginConfigs(db());
    await env.DB.prepare(`INSERT INTO plugin_configs (name, version, enabled, "order", settings, updated_at) VALUES ('ghost', '9.9.9', 1, 2, '{"a":1}', 1)`).run();
    await env.DB.prepare(`INSERT INTO plugin_configs (name, version, enabled, "order", settings, updated_at) VALUES ('phantom', '0.1.0', 0, 99, '{}', 1)`).run();
    const configs = await syncPluginConfigs(db());
    expect(configs.map((c) => c.name)).toEqual(PLUGINS.map((p) => p.name));
    const names = (await rows()).map((r) => r.name);
    expect(names).not.toContain("ghost");
    expect(names).not.toContain("phantom");
    expect(names).toHaveLength(PLUGINS.length);
  });

  it("keeps what the user chose (enabled, settings) and repairs order and version", async () => {
    await syncPluginConfigs(db());
    await env.DB.prepare(`UPDATE plugin_configs SET enabled = 0, settings = '{"timeZone":"Asia/Tokyo"}', "order" = 42, version = '0.0.1' WHERE name = 'time'`).run();
    const configs = await syncPluginConfigs(db());
    const order = PLUGINS.findIndex((p) => p.name === "time");
    expect(configs[order]).toEqual({ name: "time", version: PLUGINS[order].version, enabled: false, order, settings: { timeZone: "Asia/Tokyo" } });
    const row = (await rows()).find((r) => r.name === "time")!;
    expect(row).toMatchObject({ enabled: 0, order, version: PLUGINS[order].version });
    expect(JSON.parse(row.settings)).toEqual({ timeZone: "Asia/Tokyo" });
  });

  it("creates only the missing rows, leaving the others untouched", async () => {
    await syncPluginConfigs(db());
    await env.DB.prepare("UPDATE plugin_configs SET updated_at = 1").run();
    await env.DB.prepare("DELETE FROM plugin_configs WHERE name = 'context'").run();
    await syncPluginConfigs(db());
    const stored = await rows();
    expect(stored.map((r) => r.name)).toEqual(PLUGINS.map((p) => p.name));
    for (const r of stored) {
      if (r.name === "context") expect(r.updated_at).toBeGreaterThan(1);
      else expect(r.updated_at).toBe(1);
    }
  });

  it("does not write when nothing changed: one read, no statement else", async () => {
    await syncPluginConfigs(db());
    const snapshot = await rows();
    const usage = newUsage();
    const batch = vi.spyOn(env.DB, "batch");
    try {
      const configs = await syncPluginConfigs(drizzle(meteredD1(env.DB, usage), { schema }));
      expect(configs).toHaveLength(PLUGINS.length);
      expect(usage).toMatchObject({ statements: 1, roundTrips: 1, rowsWritten: 0 });
      expect(batch).not.toHaveBeenCalled();
    } finally {
      batch.mockRestore();
    }
    expect(await rows()).toEqual(snapshot);
  });

  it("follows the list it is given (a plugin added, one removed), then the registry again", async () => {
    await syncPluginConfigs(db());
    const extra: PluginDefinition<{ level: number }> = {
      name: "extra",
      version: "2.0.0",
      settings: z.object({ level: z.number().default(3) }),
      register: () => ({}),
    };
    const defs = [...PLUGINS.filter((p) => p.name !== "web"), extra];
    const configs = await syncPluginConfigs(db(), defs);
    expect(configs.map((c) => c.name)).toEqual(defs.map((d) => d.name));
    expect(configs[configs.length - 1]).toEqual({ name: "extra", version: "2.0.0", enabled: true, order: defs.length - 1, settings: { level: 3 } });
    expect((await rows()).map((r) => r.name)).toEqual(defs.map((d) => d.name));
    // Back to the code's list: web is recreated with its defaults, extra goes.
    await syncPluginConfigs(db());
    expect((await rows()).map((r) => r.name)).toEqual(PLUGINS.map((p) => p.name));
  });
});

describe("PluginHost", () => {
  const ctxFor = (def: PluginDefinition<any>, settings: () => Record<string, unknown>) =>
    ({ name: def.name, get settings() { return settings(); } }) as unknown as PluginContext<any>;

  function host(defs: PluginDefinition<any>[], defaultTimeoutMs = 1234) {
    const { logger, at } = recordingLogger();
    return { host: new PluginHost(defs, logger, defaultTimeoutMs).register(ctxFor), at };
  }

  const config = (name: string, order: number, enabled: boolean, settings: Record<string, unknown> = {}): PluginConfig => ({
    name, version: "1", enabled, order, settings,
  });

  it("registers each plugin once, lists its hooks in registration order, bound to its hooks object", () => {
    const register = vi.fn(
      () =>
        ({
          tag: "first",
          onMessage(this: { tag: string }) {
            return this.tag;
          },
        }) as unknown as Hooks,
    );
    const a: PluginDefinition = { name: "a", version: "1", register };
    const b: PluginDefinition = { name: "b", version: "1", hookTimeoutMs: { onMessage: 50, onCommand: 50 }, register: () => ({ onMessage: () => {}, onCommand: () => true }) };
    const { host: h } = host([a, b]);
    expect(register).toHaveBeenCalledTimes(1);
    const entries = h.entries("onMessage");
    expect(entries.map((e) => [e.plugin, e.timeoutMs])).toEqual([
      ["a", 1234],
      ["b", 50],
    ]);
    expect((entries[0].fn as any)()).toBe("first");
    expect(h.entries("onCommand").map((e) => e.plugin)).toEqual(["b"]);
    expect(h.entries("onTaskCreate")).toEqual([]);
    h.apply([config("a", 0, true)]);
    expect(register).toHaveBeenCalledTimes(1); // applying configs never registers again
  });

  it("drops a disabled plugin's hooks and tools, and restores them when re-enabled", () => {
    const tool = { name: "t", description: "d", inputSchema: { type: "object" as const }, handler: () => "ok" };
    const a: PluginDefinition = { name: "a", version: "1", tools: [tool], register: () => ({ onMessage: () => {} }) };
    const b: PluginDefinition = { name: "b", version: "1", register: () => ({ onMessage: () => {} }) };
    const { host: h } = host([a, b]);
    expect(h.tools().map((t) => t.name)).toEqual(["a__t"]);
    h.apply([config("a", 0, false), config("b", 1, true), config("unknown", 2, true)]);
    expect(h.entries("onMessage").map((e) => e.plugin)).toEqual(["b"]);
    expect(h.tools()).toEqual([]);
    h.apply([config("a", 0, true)]);
    expect(h.entries("onMessage").map((e) => e.plugin)).toEqual(["a", "b"]);
    expect(h.tools()).toEqual([{ name: "a__t", description: "d", input_schema: { type: "object" } }]);
  });

  it("gives each plugin its settings: defaults first, then what is applied", () => {
    let ctx!: PluginContext<any>;
    const def: PluginDefinition<{ n: number }> = {
      name: "s", version: "1", settings: z.object({ n: z.number().default(7) }),
      register: (c) => ((ctx = c), {}),
    };
    const { host: h } = host([def]);
    expect(ctx.settings).toEqual({ n: 7 });
    h.apply([config("s", 0, true, { n: 9 })]);
    expect(ctx.settings).toEqual({ n: 9 });
  });

  it("runs tools: strings become results, outcomes pass through, throws and unknown names become errors, long output is cut", async () => {
    const handler = vi.fn((input: any, call: ToolCall, ctx: PluginContext) => `${ctx.name}:${JSON.stringify(input)}:${call.threadId}`);
    const def: PluginDefinition = {
      name: "p",
      version: "1",
      tools: [
        { name: "echo", description: "", inputSchema: { type: "object" }, handler },
        { name: "outcome", description: "", inputSchema: { type: "object" }, handler: async () => ({ content: "refused", isError: true }) },
        { name: "boom", description: "", inputSchema: { type: "object" }, handler: async () => { throw new Error("kaput"); } },
        { name: "big", description: "", inputSchema: { type: "object" }, handler: () => "x".repeat(150_000) },
      ],
      register: () => ({}),
    };
    const { host: h, at } = host([def]);
    const call: ToolCall = { threadId: "thr_1", runId: "run_1", messageId: "msg_1", ownerId: "o", toolUseId: "toolu_1", signal: new AbortController().signal };
    expect(await h.runTool("p__echo", { a: 1 }, call)).toEqual({ content: 'p:{"a":1}:thr_1', isError: false });
    expect(handler.mock.calls[0][1]).toBe(call);
    expect(await h.runTool("p__echo", undefined, call)).toEqual({ content: "p:{}:thr_1", isError: false });
    expect(await h.runTool("p__outcome", {}, call)).toEqual({ content: "refused", isError: true });
    expect(await h.runTool("p__boom", {}, call)).toEqual({ content: "Tool p__boom failed: kaput", isError: true });
    expect(at("warn")[0].fields).toEqual({ tool: "p__boom", error: "kaput" });
    expect(await h.runTool("p__missing", {}, call)).toEqual({ content: "Unknown tool: p__missing", isError: true });
    expect(await h.runTool("echo", {}, call)).toEqual({ content: "Unknown tool: echo", isError: true });
    const big = await h.runTool("p__big", {}, call);
    expect(big.isError).toBe(false);
    expect(big.content).toBe(`${"x".repeat(100_000)}\n[truncated]`);
  });
});

describe("/api/plugins", () => {
  afterEach(async () => {
    await syncPluginConfigs(db());
    for (const p of PLUGINS) await reset(p.name);
  });

  it("lists every plugin with name, version, description, enabled, order, settings and its tools", async () => {
    const res = await api("/api/plugins");
    expect(res.status).toBe(200);
    const { plugins } = await res.json<{ plugins: any[] }>();
    expect(plugins.map((p) => p.name)).toEqual(PLUGINS.map((p) => p.name));
    plugins.forEach((p, i) => {
      expect(Object.keys(p).sort()).toEqual(["description", "enabled", "name", "order", "settings", "tools", "version"]);
      expect(p).toMatchObject({ name: PLUGINS[i].name, version: PLUGINS[i].version, enabled: true, order: i });
      expect(p.description).toBe(PLUGINS[i].description ?? "");
      const own = (PLUGINS[i].tools ?? []).map((t) => ({ name: `${PLUGINS[i].name}__${t.name}`, description: t.description }));
      expect(p.tools.slice(0, own.length)).toEqual(own);
      // The API's own tools keep their names.
      for (const t of p.tools.slice(own.length)) expect(["web_search", "web_fetch", "memory", "code_execution"]).toContain(t.name);
    });
    expect(plugins.find((p) => p.name === "web").tools.map((t: any) => t.name)).toEqual(["web_search", "web_fetch"]);
    expect(plugins.find((p) => p.name === "memory").tools.map((t: any) => t.name)).toEqual(["memory"]);
    const time = plugins.find((p) => p.name === "time");
    expect(time.tools).toEqual([{ name: "time__current_time", description: expect.stringContaining("current date and time") }]);
    expect(time.settings).toEqual({ timeZone: "UTC" });
    expect(plugins.find((p) => p.name === "activity").tools).toEqual([]);
  });

  it("disables and re-enables a plugin, and says so in the list and in D1", async () => {
    const off = await patch("time", { enabled: false });
    expect(off.status).toBe(200);
    const { plugin } = await off.json<{ plugin: any }>();
    expect(plugin).toMatchObject({ name: "time", enabled: false, settings: { timeZone: "UTC" } });
    expect(plugin.tools).toEqual([{ name: "time__current_time", description: expect.any(String) }]);
    expect((await json<{ plugins: any[] }>(api("/api/plugins"))).plugins.find((p) => p.name === "time").enabled).toBe(false);
    expect((await rows()).find((r) => r.name === "time")!.enabled).toBe(0);

    const on = await patch("time", { enabled: true });
    expect(on.status).toBe(200);
    expect((await on.json<{ plugin: any }>()).plugin.enabled).toBe(true);
    expect((await rows()).find((r) => r.name === "time")!.enabled).toBe(1);
  });

  it("lists from the configs' copy: with D1 away the list answers, as the last change published it", async () => {
    expect((await patch("time", { enabled: false })).status).toBe(200);
    const noD1 = { ...env, DB: undefined as unknown as D1Database };
    try {
      const res = await callApp(noD1, "/api/plugins");
      expect(res.status).toBe(200);
      expect((await res.json<{ plugins: any[] }>()).plugins.find((p) => p.name === "time").enabled).toBe(false);
      // The copy itself, as a new isolate or a thread's object reads it: no D1 either.
      const read = await configCopy(noD1).read();
      expect(read !== "unchanged" && read.stored.find((c) => c.name === "time")?.enabled).toBe(false);
      expect(await configCopy(noD1).read(read !== "unchanged" ? read.version : "")).toBe("unchanged");
    } finally {
      expect((await patch("time", { enabled: true })).status).toBe(200);
    }
  });

  it("rejects settings the plugin's schema refuses, with issues, and stores nothing", async () => {
    const res = await patch("time", { settings: { timeZone: "Not/AZone" } });
    expect(res.status).toBe(400);
    const body = await res.json<any>();
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.message).toContain("time");
    expect(body.error.issues).toEqual([expect.objectContaining({ path: "timeZone", message: "not an IANA time zone" })]);
    expect(JSON.parse((await rows()).find((r) => r.name === "time")!.settings)).toEqual({ timeZone: "UTC" });

    const wrongType = await patch("time", { settings: { timeZone: 5 } });
    expect(wrongType.status).toBe(400);
    expect((await wrongType.json<any>()).error.issues.map((i: any) => i.path)).toContain("timeZone");
  });

  it("stores valid settings, merged over the current ones, and the list shows them", async () => {
    const res = await patch("time", { settings: { timeZone: "Europe/Paris" } });
    expect(res.status).toBe(200);
    expect((await res.json<{ plugin: any }>()).plugin).toMatchObject({ name: "time", enabled: true, settings: { timeZone: "Europe/Paris" } });
    expect(JSON.parse((await rows()).find((r) => r.name === "time")!.settings)).toEqual({ timeZone: "Europe/Paris" });
    expect((await json<{ plugins: any[] }>(api("/api/plugins"))).plugins.find((p) => p.name === "time").settings).toEqual({ timeZone: "Europe/Paris" });

    // Merge: one field changed, the others kept; a bad value in one field leaves all as they were.
    expect((await (await patch("context", { settings: { historyLimit: 10 } })).json<any>()).plugin.settings).toEqual({ historyLimit: 10, maxFileBytes: 50_000, maxShare: 0.25 });
    const bad = await patch("context", { settings: { maxFileBytes: 10 } });
    expect(bad.status).toBe(400);
    expect((await bad.json<any>()).error.issues.map((i: any) => i.path)).toEqual(["maxFileBytes"]);
    expect(JSON.parse((await rows()).find((r) => r.name === "context")!.settings)).toEqual({ historyLimit: 10, maxFileBytes: 50_000, maxShare: 0.25 });

    // enabled and settings together.
    const both = await patch("time", { enabled: false, settings: { timeZone: "America/New_York" } });
    expect((await both.json<any>()).plugin).toMatchObject({ enabled: false, settings: { timeZone: "America/New_York" } });
  });

  it("answers 404 for an unknown plugin", async () => {
    const res = await patch("nope", { enabled: false });
    expect(res.status).toBe(404);
    expect((await res.json<any>()).error.code).toBe("not_found");
    expect((await rows()).map((r) => r.name)).not.toContain("nope");
  });

  it("refuses settings for a plugin without a settings schema", async () => {
    const res = await patch("activity", { settings: { verbose: true } });
    expect(res.status).toBe(400);
    const body = await res.json<any>();
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.message).toContain("activity");
    expect(JSON.parse((await rows()).find((r) => r.name === "activity")!.settings)).toEqual({});
  });

  it("validates the body: something to change, the right types, no unknown keys, JSON", async () => {
    for (const body of [{}, { enabled: "no" }, { enabled: true, extra: 1 }, { settings: "UTC" }]) {
      const res = await patch("time", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const err = (await res.json<any>()).error;
      expect(err.code).toBe("invalid_request");
      expect(Array.isArray(err.issues)).toBe(true);
    }
    const text = await api("/api/plugins/time", { method: "PATCH", body: "enabled=false", headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(415);
    expect((await rows()).find((r) => r.name === "time")!.enabled).toBe(1);
  });
});
