import { afterEach, describe, expect, it } from "vitest";
import type { PluginDefinition } from "../../worker/plugins/contract";
import { PLUGINS } from "../../worker/plugins/registry";
import { api, createThread, marker, script, settle, Socket } from "../helpers";

const installed: PluginDefinition[] = [];
afterEach(async () => {
  await settle();
  for (const p of installed.splice(0)) PLUGINS.splice(PLUGINS.indexOf(p), 1);
});

describe("plugin lifecycle and commands", () => {
  it("starts each plugin once per thread object, before its first run, and stops it when the thread is deleted", async () => {
    const calls: string[] = [];
    const plugin: PluginDefinition = {
      name: "lifecycle-probe",
      version: "1.0.0",
      register: () => ({ onMessage: () => void calls.push("onMessage") }),
      start: async () => void calls.push("start"),
      stop: async () => void calls.push("stop"),
    };
    PLUGINS.push(plugin);
    installed.push(plugin);
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: "one" } });
    await api(`/api/threads/${thread.id}/messages`, { body: { content: "two" } });
    await ws.waitForRunEnd(2);
    expect(calls).toEqual(["start", "onMessage", "onMessage"]);
    expect((await api(`/api/threads/${thread.id}`, { method: "DELETE" })).status).toBe(204);
    expect(calls).toEqual(["start", "onMessage", "onMessage", "stop"]);
  });

  it("reports commands that no plugin handled in pipeline:complete", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "text", text: "Here.\n/frobnicate the widgets\n```\n/delegate not this one\n```" }]);
    const ws = await Socket.open(thread.id);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: m } });
    await ws.waitForRunEnd();
    expect(ws.events("pipeline:complete")[0].data).toMatchObject({ commandsHandled: [], commandsUnhandled: ["frobnicate"] });
    ws.close();
  });

  it("stops a run at once even while a plugin hook is stuck before the model call", async () => {
    const stuck: PluginDefinition = {
      name: "stuck-before-invoke",
      version: "1.0.0",
      hookTimeoutMs: { onBeforeInvoke: 60_000 },
      register: () => ({ onBeforeInvoke: () => new Promise(() => {}) }),
    };
    PLUGINS.push(stuck);
    installed.push(stuck);
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: "hello" } });
    await ws.waitFor((f) => f.some((x) => x.event === "pipeline:step" && x.data.step === "onMessage"));
    const asked = Date.now();
    await api(`/api/threads/${thread.id}/stop`, { method: "POST" });
    await ws.waitForRunEnd();
    expect(Date.now() - asked).toBeLessThan(1_000);
    expect(ws.events("pipeline:error")[0].data).toMatchObject({ code: "aborted" });
    ws.close();
  });
});
