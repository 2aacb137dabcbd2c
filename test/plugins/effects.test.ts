// Plugins in real runs: what enabling and disabling changes, that a faulty or slow plugin cannot
// break a run, what hooks see and may change, and plugin tools (errors, the call's identity).
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { Hooks, PluginDefinition, RunInfo, ToolCall } from "../../worker/plugins/contract";
import type { ThreadRoom } from "../../worker/thread/room";
import { api, marker, messagesOf, script, Socket, threadObject, upstreamRequests } from "../helpers";
import { callApp } from "../http/util";
import { env, lastUserText, newThread, runTurn, toolNames, withPlugin } from "./util";

const ISO_IN_PARENS = /\(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\)/;

/** As an admin of a deployment without a spend cap (with one, metrics may not be turned off). */
async function setPlugin(name: string, body: Record<string, unknown>) {
  const res = await callApp({ ...env, USER_DAILY_COST_USD: undefined }, `/api/plugins/${name}`, { method: "PATCH", body });
  expect(res.status, await res.clone().text()).toBe(200);
}

describe("enabling and disabling", () => {
  afterEach(async () => {
    await setPlugin("time", { enabled: true, settings: { timeZone: "UTC" } });
  });

  it("a disabled plugin has no effect (no tool, no /current-time), and has both again once re-enabled", async () => {
    await setPlugin("time", { enabled: false });
    const thread = await newThread();
    const m = marker("time-off");
    await script(m, [
      // While disabled, the model asking for its tool gets an unknown-tool error.
      { kind: "tool_use", tools: [{ name: "time__current_time", input: {}, id: "toolu_off" }] },
      { kind: "text", text: "No clock." },
      { kind: "text", text: "Clock." },
    ]);
    const ws = await Socket.open(thread.id);
    const first = await runTurn(ws, thread.id, `what time is it? /current-time ${m}`);
    expect(first.end.event).toBe("pipeline:complete");

    let reqs = await upstreamRequests(m);
    expect(reqs).toHaveLength(2);
    expect(toolNames(reqs[0].body)).not.toContain("time__current_time");
    expect(lastUserText(reqs[0].body)).toBe(`what time is it? /current-time ${m}`);
    const refused = reqs[1].body.messages[reqs[1].body.messages.length - 1].content[0];
    expect(refused).toMatchObject({ type: "tool_result", tool_use_id: "toolu_off", is_error: true, content: "Unknown tool: time__current_time" });

    await setPlugin("time", { enabled: true });
    const second = await runTurn(ws, thread.id, `and now? /current-time ${m}`, 2);
    expect(second.end.event).toBe("pipeline:complete");
    reqs = await upstreamRequests(m);
    expect(reqs).toHaveLength(3);
    const tool = (reqs[2].body.tools as any[]).find((t) => t.name === "time__current_time");
    expect(tool).toEqual({ name: "time__current_time", description: expect.stringContaining("time zone"), input_schema: { type: "object", properties: {} } });
    const prompt = lastUserText(reqs[2].body);
    expect(prompt).not.toContain("/current-time");
    expect(prompt).toMatch(new RegExp(`^and now\\? .+ \\(\\d{4}-\\d{2}-\\d{2}T[^)]+Z\\) ${m.replace(/[[\]]/g, "\\$&")}$`));
    expect(prompt).toMatch(ISO_IN_PARENS);
    ws.close();
  });

  it("disabled activity, metrics and context plugins store no rows, record no run and inject nothing", async () => {
    const thread = await newThread();
    const m = marker("off");
    await script(m, [{ kind: "text", text: "plain", thinking: { text: "quietly", signature: "sig-off" } }, { kind: "text", text: "rich" }]);
    const ws = await Socket.open(thread.id);
    expect((await api("/api/context/memory.md", { method: "PUT", body: { content: "LOCAL-MEMORY" } })).status).toBe(200);
    try {
      try {
        for (const name of ["activity", "metrics", "context"]) await setPlugin(name, { enabled: false });
        const first = await runTurn(ws, thread.id, `quiet ${m}`);
        expect(first.end.event).toBe("pipeline:complete");
        expect((await messagesOf(thread.id)).messages.map((x) => `${x.kind}:${x.role}`)).toEqual(["text:user", "text:assistant"]);
        expect((await (await api(`/api/metrics?threadId=${thread.id}`)).json<any>()).runs).toEqual([]);
        const [quiet] = await upstreamRequests(m);
        expect(JSON.stringify(quiet.body.system ?? "")).not.toContain("LOCAL-MEMORY");
      } finally {
        for (const name of ["activity", "metrics", "context"]) await setPlugin(name, { enabled: true });
      }
      await runTurn(ws, thread.id, `loud ${m}`, 2);
      const kinds = (await messagesOf(thread.id)).messages.map((x) => x.kind);
      expect(kinds.filter((k) => k === "status")).toHaveLength(2);
      expect((await (await api(`/api/metrics?threadId=${thread.id}`)).json<any>()).runs).toHaveLength(1);
      const [, loud] = await upstreamRequests(m);
      expect(loud.body.system[0].text).toContain("LOCAL-MEMORY");
    } finally {
      await api("/api/context/memory.md", { method: "DELETE" });
      ws.close();
    }
  });

  it("a plugin's settings apply from the next run (time zone)", async () => {
    await setPlugin("time", { settings: { timeZone: "Asia/Tokyo" } });
    const thread = await newThread();
    const m = marker("tz");
    const ws = await Socket.open(thread.id);
    await runTurn(ws, thread.id, `/current-time ${m}`);
    await setPlugin("time", { settings: { timeZone: "UTC" } });
    await runTurn(ws, thread.id, `/current-time ${m}`, 2);
    const [tokyo, utc] = await upstreamRequests(m);
    expect(lastUserText(tokyo.body)).toMatch(/GMT\+9/);
    expect(lastUserText(utc.body)).toMatch(/UTC/);
    expect(lastUserText(utc.body)).not.toMatch(/GMT\+9/);
    ws.close();
  });
});

describe("a faulty plugin", () => {
  it("throwing from every hook (first in line) breaks nothing: the run completes, is stored and delivered", async () => {
    const called = new Set<string>();
    const fail = (hook: string) => {
      called.add(hook);
      throw new Error(`${hook} exploded`);
    };
    const thrower: PluginDefinition = {
      name: "thrower",
      version: "0.0.1",
      register: (): Hooks => ({
        onPipelineStart: () => fail("onPipelineStart"),
        onMessage: async () => fail("onMessage"),
        onBeforeInvoke: () => fail("onBeforeInvoke"),
        onStreamEvent: () => fail("onStreamEvent"),
        onAfterInvoke: async () => fail("onAfterInvoke"),
        onBroadcast: () => fail("onBroadcast"),
        onCommand: async () => fail("onCommand"),
        onPipelineComplete: async () => fail("onPipelineComplete"),
      }),
    };
    await withPlugin(
      thrower,
      async () => {
        const listed = (await (await api("/api/plugins")).json<any>()).plugins;
        expect(listed[0]).toMatchObject({ name: "thrower", order: 0, enabled: true });

        const thread = await newThread();
        const m = marker("thrower");
        await script(m, [
          { kind: "text", text: "Still here.\n/nothing-here at all", thinking: { text: "Hmm.", signature: "sig-thr" }, usage: { input_tokens: 11, output_tokens: 5 } },
        ]);
        const ws = await Socket.open(thread.id);
        const { message, end } = await runTurn(ws, thread.id, `keep going ${m}`);
        expect(end.event).toBe("pipeline:complete");
        expect(end.data).toMatchObject({ commandsHandled: [], commandsUnhandled: ["nothing-here"] });
        expect(called).toEqual(new Set(["onPipelineStart", "onMessage", "onBeforeInvoke", "onStreamEvent", "onAfterInvoke", "onBroadcast", "onCommand", "onPipelineComplete"]));

        // Delivered (the core sends frames; a throwing onBroadcast stops nothing), every step announced.
        const steps = ws.events("pipeline:step").map((f) => f.data.step);
        expect(steps).toEqual(["onMessage", "onBeforeInvoke", "invoking", "onAfterInvoke"]);
        expect(ws.events("chat:message").map((f) => f.data.message.role)).toEqual(["user", "assistant"]);

        // The prompt reached the model as the other plugins made it.
        const [req] = await upstreamRequests(m);
        expect(lastUserText(req.body)).toBe(`keep going ${m}`);

        // Stored: the core's answer, the activity plugin's rows, the metrics plugin's run.
        const stored = (await messagesOf(thread.id)).messages;
        expect(stored.filter((x) => x.kind === "text").map((x) => [x.role, x.content])).toEqual([
          ["user", `keep going ${m}`],
          ["assistant", "Still here.\n/nothing-here at all"],
        ]);
        expect(stored.find((x) => x.kind === "status" && x.content === "pipeline_complete")).toBeDefined();
        expect(stored.find((x) => x.kind === "thinking")?.content).toBe("Hmm.");
        const metrics = await (await api(`/api/metrics?threadId=${thread.id}`)).json<any>();
        expect(metrics.runs).toHaveLength(1);
        expect(metrics.runs[0]).toMatchObject({ status: "completed", inputTokens: 11, outputTokens: 5 });
        expect(message.id).toBe(stored[0].id);
        ws.close();
      },
      0,
    );
    // Out of the registry: its config row goes on the next sync.
    const after = (await (await api("/api/plugins")).json<any>()).plugins.map((p: any) => p.name);
    expect(after).not.toContain("thrower");
    expect(after[0]).toBe("activity");
    const row = await env.DB.prepare("SELECT count(*) AS n FROM plugin_configs WHERE name = 'thrower'").first<{ n: number }>();
    expect(row!.n).toBe(0);
  });

  it("a hook that never resolves is cut off after the plugin's timeout, and the run goes on", async () => {
    const reached: string[] = [];
    const slow: PluginDefinition = {
      name: "slowpoke",
      version: "0.0.1",
      hookTimeoutMs: { onMessage: 300, onBeforeInvoke: 300 },
      register: (): Hooks => ({
        onMessage: () => {
          reached.push("onMessage");
          return new Promise<void>(() => {});
        },
        onBeforeInvoke: () => {
          reached.push("onBeforeInvoke");
          return new Promise(() => {});
        },
      }),
    };
    await withPlugin(slow, async () => {
      const thread = await newThread();
      const m = marker("slow");
      await script(m, [{ kind: "text", text: "Late but fine." }]);
      const ws = await Socket.open(thread.id);
      const started = Date.now();
      const { end } = await runTurn(ws, thread.id, `patience ${m}`);
      expect(end.event).toBe("pipeline:complete");
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(reached).toEqual(["onMessage", "onBeforeInvoke"]);

      const at = (name: string) => {
        const f = ws.events().find((x) => (x.event === "pipeline:step" ? x.data.step : x.event) === name)!;
        return f.timestamp;
      };
      expect(at("onMessage") - at("pipeline:start")).toBeGreaterThanOrEqual(280);
      expect(at("onBeforeInvoke") - at("onMessage")).toBeGreaterThanOrEqual(280);
      // The stuck onBeforeInvoke kept the previous prompt.
      const [req] = await upstreamRequests(m);
      expect(lastUserText(req.body)).toBe(`patience ${m}`);
      expect(ws.events("chat:message").pop()!.data.message.content).toBe("Late but fine.");
      ws.close();
    });
  });

  it("a plugin without its own bound gets the default hook timeout (HOOK_TIMEOUT_MS, 10 s unset)", async () => {
    // Waiting 10 s for a real run is too slow for the suite: the bound is checked on the object.
    const plain: PluginDefinition = { name: "plain", version: "0.0.1", register: () => ({ onMessage() {} }) };
    const bounded: PluginDefinition = { name: "bounded", version: "0.0.1", hookTimeoutMs: { onMessage: 250 }, register: () => ({ onMessage() {} }) };
    expect(env.HOOK_TIMEOUT_MS).toBeUndefined();
    await withPlugin(plain, () =>
      withPlugin(bounded, async () => {
        const thread = await newThread();
        const stub = threadObject(thread.id);
        const timeouts = await runInDurableObject(stub, (room: ThreadRoom) =>
          Object.fromEntries(((room.parts.plugins as any).entries("onMessage") as { plugin: string; timeoutMs: number }[]).map((e) => [e.plugin, e.timeoutMs])),
        );
        expect(timeouts).toMatchObject({ plain: 10_000, bounded: 250 });
      }),
    );
  });
});

describe("what hooks see and change", () => {
  it("in order, with the run; a chained prompt reaches the model; a command taken counts as handled", async () => {
    const seen: { hook: string; args: any[] }[] = [];
    const rec = (hook: string, args: any[]): void => {
      seen.push({ hook, args: structuredClone(args) });
    };
    const recorder: PluginDefinition = {
      name: "recorder",
      version: "0.0.1",
      register: (): Hooks => ({
        onPipelineStart: (run) => rec("onPipelineStart", [run]),
        onMessage: (message, run) => rec("onMessage", [message, run]),
        onBeforeInvoke: (prompt, run) => {
          rec("onBeforeInvoke", [prompt, run]);
          return { system: `${prompt.system}\n\nRECORDER-SYSTEM`, prompt: `${prompt.prompt} [recorded]` };
        },
        onStreamEvent: (event) => rec("onStreamEvent", [event]),
        onAfterInvoke: (result, run) => rec("onAfterInvoke", [{ output: result.output, usage: result.usage, toolCalls: result.toolCalls }, run]),
        onCommand: (command) => {
          rec("onCommand", [command]);
          return command.name === "recorded";
        },
        onPipelineComplete: (outcome, run) => rec("onPipelineComplete", [{ status: outcome.status, commandsHandled: outcome.commandsHandled, assistant: outcome.assistantMessage?.content }, run]),
      }),
    };
    await withPlugin(recorder, async () => {
      const thread = await newThread();
      const m = marker("rec");
      await script(m, [
        { kind: "text", text: "Noted.\n/recorded yes\n/unknown-cmd", usage: { input_tokens: 9, output_tokens: 4 } },
        { kind: "text", text: "Again." },
      ]);
      const ws = await Socket.open(thread.id);
      const { message, end } = await runTurn(ws, thread.id, `record me ${m}`);
      expect(end.data).toMatchObject({ commandsHandled: ["recorded"], commandsUnhandled: ["unknown-cmd"] });

      const hooks = seen.map((s) => s.hook).filter((h, i, all) => h !== "onStreamEvent" || all[i - 1] !== "onStreamEvent");
      expect(hooks).toEqual(["onPipelineStart", "onMessage", "onBeforeInvoke", "onStreamEvent", "onAfterInvoke", "onCommand", "onCommand", "onPipelineComplete"]);
      const run: RunInfo = seen[0].args[0];
      const startFrame = ws.events("pipeline:start")[0].data;
      expect(run).toMatchObject({ threadId: thread.id, runId: startFrame.runId, messageId: message.id, ownerId: "local", model: thread.model, content: `record me ${m}`, resident: false });
      expect(run.thread).toMatchObject({ id: thread.id });
      for (const s of seen.filter((x) => x.args[1]?.runId)) expect(s.args[1].runId).toBe(run.runId);
      expect(seen[1].args[0]).toMatchObject({ id: message.id, role: "user", content: `record me ${m}` });
      // Registered last: it gets the prompt as the earlier plugins made it.
      const prompt = seen[2].args[0];
      expect(prompt.prompt).toBe(`record me ${m}`);
      expect(seen.filter((s) => s.hook === "onStreamEvent").map((s) => s.args[0].delta).join("")).toBe("Noted.\n/recorded yes\n/unknown-cmd");
      expect(seen.find((s) => s.hook === "onAfterInvoke")!.args[0]).toEqual({ output: "Noted.\n/recorded yes\n/unknown-cmd", usage: { inputTokens: 9, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0 }, toolCalls: 0 });
      expect(seen.filter((s) => s.hook === "onCommand").map((s) => s.args[0])).toEqual([
        { name: "recorded", args: "yes", raw: "/recorded yes" },
        { name: "unknown-cmd", args: "", raw: "/unknown-cmd" },
      ]);
      expect(seen[seen.length - 1].args[0]).toEqual({ status: "completed", commandsHandled: ["recorded"], assistant: "Noted.\n/recorded yes\n/unknown-cmd" });

      const [req] = await upstreamRequests(m);
      expect(lastUserText(req.body)).toBe(`record me ${m} [recorded]`);
      expect(req.body.system[0].text.endsWith("\n\nRECORDER-SYSTEM")).toBe(true);

      // Second turn: the object holds the conversation now.
      seen.length = 0;
      await runTurn(ws, thread.id, `again ${m}`, 2);
      expect(seen[0].args[0].resident).toBe(true);
      ws.close();
    });
  });
});

describe("plugin tools", () => {
  it("a throwing handler becomes an is_error tool_result; a handler gets its thread and tool_use id explicitly", async () => {
    const calls: { input: any; call: ToolCall; ctxName: string; aborted: boolean }[] = [];
    const probe: PluginDefinition = {
      name: "probe",
      version: "0.0.1",
      tools: [
        {
          name: "boom",
          description: "Always fails.",
          inputSchema: { type: "object", properties: {} },
          handler: async () => {
            throw new Error("kaput");
          },
        },
        {
          name: "echo",
          description: "Echoes x, slowly.",
          inputSchema: { type: "object", properties: { x: { type: "string" } }, required: ["x"] },
          handler: async (input: { x: string }, call, ctx) => {
            await new Promise((r) => setTimeout(r, 30)); // both threads are in their handlers at once
            calls.push({ input, call, ctxName: ctx.name, aborted: call.signal.aborted });
            return `echoed:${input.x}`;
          },
        },
      ],
      register: () => ({}),
    };
    await withPlugin(probe, async () => {
      const [a, b] = [await newThread(), await newThread()];
      const ms = { [a.id]: marker("toolA"), [b.id]: marker("toolB") };
      for (const [t, label] of [[a, "A"], [b, "B"]] as const) {
        await script(ms[t.id], [
          { kind: "tool_use", tools: [{ name: "probe__boom", input: {}, id: `toolu_boom_${label}` }, { name: "probe__echo", input: { x: label }, id: `toolu_echo_${label}` }] },
          { kind: "text", text: `done ${label}` },
        ]);
      }
      const [wa, wb] = await Promise.all([Socket.open(a.id), Socket.open(b.id)]);
      const [ra, rb] = await Promise.all([runTurn(wa, a.id, `go ${ms[a.id]}`), runTurn(wb, b.id, `go ${ms[b.id]}`)]);
      expect(ra.end.event).toBe("pipeline:complete");
      expect(rb.end.event).toBe("pipeline:complete");

      for (const [t, label, ws] of [[a, "A", wa], [b, "B", wb]] as const) {
        const reqs = await upstreamRequests(ms[t.id]);
        expect(reqs).toHaveLength(2);
        const offered = (reqs[0].body.tools as any[]).filter((x) => x.name.startsWith("probe__"));
        expect(offered).toEqual([
          { name: "probe__boom", description: "Always fails.", input_schema: { type: "object", properties: {} } },
          { name: "probe__echo", description: "Echoes x, slowly.", input_schema: { type: "object", properties: { x: { type: "string" } }, required: ["x"] } },
        ]);
        const results = reqs[1].body.messages[reqs[1].body.messages.length - 1].content;
        expect(results).toEqual([
          { type: "tool_result", tool_use_id: `toolu_boom_${label}`, content: "Tool probe__boom failed: kaput", is_error: true },
          { type: "tool_result", tool_use_id: `toolu_echo_${label}`, content: `echoed:${label}` },
        ]);
        const streamed = ws.events("pipeline:stream").map((f) => f.data).filter((d) => d.type === "tool_result");
        expect(streamed.map((d) => [d.toolUseId, d.isError])).toEqual([
          [`toolu_boom_${label}`, true],
          [`toolu_echo_${label}`, false],
        ]);
        expect(ws.events("chat:message").pop()!.data.message.content).toBe(`done ${label}`);
      }

      expect(calls).toHaveLength(2);
      for (const [t, label] of [[a, "A"], [b, "B"]] as const) {
        const c = calls.find((x) => x.input.x === label)!;
        expect(c.call).toMatchObject({ threadId: t.id, toolUseId: `toolu_echo_${label}`, ownerId: "local" });
        expect(c.call.taskId).toBeUndefined();
        expect(c.call.signal).toBeInstanceOf(AbortSignal);
        expect(c.aborted).toBe(false);
        expect(c.ctxName).toBe("probe");
      }
      wa.close();
      wb.close();
    });
  });

  it("a tool handler's signal is the run's: a stop during the tool aborts it, and the run ends as aborted", async () => {
    let seen: { aborted: boolean; reason: unknown } | null = null;
    let entered!: () => void;
    const inTool = new Promise<void>((r) => (entered = r));
    const waiter: PluginDefinition = {
      name: "waiter",
      version: "0.0.1",
      tools: [
        {
          name: "wait",
          description: "Waits until stopped (at most 3 s).",
          inputSchema: { type: "object" },
          handler: async (_input, call) => {
            entered();
            await new Promise<void>((resolve) => {
              const t = setTimeout(resolve, 3_000);
              call.signal.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
            });
            seen = { aborted: call.signal.aborted, reason: call.signal.reason };
            return "waited";
          },
        },
      ],
      register: () => ({}),
    };
    await withPlugin(waiter, async () => {
      const thread = await newThread();
      const m = marker("wait");
      await script(m, [{ kind: "tool_use", tools: [{ name: "waiter__wait", input: {}, id: "toolu_wait" }] }, { kind: "text", text: "never asked" }]);
      const ws = await Socket.open(thread.id);
      const res = await api(`/api/threads/${thread.id}/messages`, { body: { content: `wait ${m}` } });
      expect(res.status).toBe(202);
      await inTool;
      const stop = await api(`/api/threads/${thread.id}/stop`, { method: "POST" });
      expect(stop.status).toBe(202);
      expect(await stop.json()).toEqual({ stopped: true });
      await ws.waitForRunEnd();
      expect(seen).toEqual({ aborted: true, reason: "stopped" });
      const end = ws.events().filter((f) => f.event === "pipeline:complete" || f.event === "pipeline:error").pop()!;
      expect(end.event).toBe("pipeline:error");
      expect(end.data.code).toBe("aborted");
      expect(await upstreamRequests(m)).toHaveLength(1); // no call to the model after the stop
      ws.close();
    });
  });
});
