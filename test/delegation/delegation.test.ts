import { abortAllDurableObjects } from "cloudflare:test";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PluginDefinition } from "../../worker/plugins/contract";
import { PLUGINS } from "../../worker/plugins/registry";
import { api, createThread, json, marker, messagesOf, script, settle, Socket, until, upstreamRequests } from "../helpers";

// The validator plugin (on by default) is off here: these tests install validators of their own, and
// its model call carries the task's prompt, so it would take the child's scripted answers (the marker
// is in the prompt). Its own tests, with delegation, are in test/plugins/validator.test.ts.
const validator = (enabled: boolean) => api("/api/plugins/validator", { method: "PATCH", body: { enabled } });
beforeAll(() => validator(false));
afterAll(() => validator(true));

const extra: PluginDefinition[] = [];
function install(plugin: PluginDefinition) {
  PLUGINS.push(plugin);
  extra.push(plugin);
}
afterEach(async () => {
  await settle();
  for (const p of extra.splice(0)) PLUGINS.splice(PLUGINS.indexOf(p), 1);
});

async function tasksOf(threadId: string) {
  return (await json<{ tasks: any[] }>(api(`/api/tasks?threadId=${threadId}`))).tasks;
}

async function finalTask(threadId: string) {
  const [task] = await until(() => tasksOf(threadId), (t) => t.length > 0 && ["completed", "failed", "cancelled"].includes(t[0].status), 15_000);
  return task;
}

/** The parent asks for a delegation: its (scripted) answer is a /delegate line for the child marker. */
async function startDelegation(parentMarker: string, childMarker: string, extraArgs = "") {
  const parent = await createThread({ name: "parent" });
  const ws = await Socket.open(parent.id);
  // Its second answer is its reaction to the task's outcome (the echo would repeat the child's commands).
  await script(parentMarker, [
    { kind: "text", text: `On it.\n/delegate summarise the report ${childMarker}${extraArgs}` },
    { kind: "text", text: "Noted the task's outcome." },
  ]);
  await api(`/api/threads/${parent.id}/messages`, { body: { content: `please delegate ${parentMarker}` } });
  return { parent, ws };
}

describe("delegation", () => {
  it("runs a task accepted on the first try, notifies the parent and lets it react", async () => {
    const [p, c] = [marker("p"), marker("c")];
    await script(c, [{ kind: "text", text: "The summary." }]);
    const { parent, ws } = await startDelegation(p, c);
    const task = await finalTask(parent.id);
    expect(task).toMatchObject({ status: "completed", result: "The summary.", currentIteration: 1, parentThreadId: parent.id, prompt: `summarise the report ${c}` });

    await ws.waitFor((f) => f.filter((x) => x.event === "pipeline:complete").length >= 2, 15_000, "the parent's reaction");
    const names = ws.events().map((f) => f.event);
    expect(ws.events("pipeline:complete")[0].data.commandsHandled).toEqual(["delegate"]);
    expect(names).toContain("task:created");
    expect(names).toContain("task:stream");
    expect(names.indexOf("task:evaluated")).toBeLessThan(names.indexOf("task:validated"));
    expect(ws.events("task:evaluated")[0].data.accepted).toBe(true);
    expect(ws.events("task:validated")[0].data.task).toMatchObject({ id: task.id, status: "completed" });
    // The child's own events reach the parent over RPC: wait for the last of them.
    await ws.waitFor((f) => f.some((x) => x.event === "task:stream" && x.data.event === "pipeline:complete"));
    const streamed = ws.events("task:stream").map((f) => f.data);
    expect(streamed.every((d) => d.threadId === parent.id && d.task.id === task.id)).toBe(true);
    expect(streamed.map((d) => d.event)).toContain("pipeline:complete");
    const notification = ws.events("thread:notification")[0].data;
    expect(notification).toMatchObject({ threadId: parent.id, sourceThreadId: task.threadId, taskId: task.id, status: "completed" });

    const stored = (await messagesOf(parent.id, "?kinds=text")).messages;
    const system = stored.find((m) => m.role === "system")!;
    expect(system.metadata).toEqual({ type: "cross-thread-notification", sourceThreadId: task.threadId, taskId: task.id, status: "completed", iterations: 1 });
    expect(system.content).toContain("The summary.");
    // The parent's agent was sent the outcome: its next run answers the notification.
    const starts = ws.events("pipeline:start").map((f) => f.data.messageId);
    expect(starts[1]).toBe(system.id);

    const child = (await json<any>(api(`/api/threads/${task.threadId}`))).thread;
    expect(child).toMatchObject({ kind: "task", parentThreadId: parent.id, status: "completed" });
    ws.close();
  });

  it("feeds a validator's rejection into the next iteration, then accepts", async () => {
    const seen: string[] = [];
    install({
      name: "strict-reviewer",
      version: "1.0.0",
      register: () => ({
        onTaskComplete(_task, result) {
          seen.push(result);
          if (seen.length === 1) throw new Error("Needs a title line");
        },
      }),
    });
    const [p, c] = [marker("p"), marker("c")];
    await script(c, [{ kind: "text", text: "draft one" }, { kind: "text", text: "# Title\ndraft two" }]);
    const { parent, ws } = await startDelegation(p, c);
    const task = await finalTask(parent.id);
    expect(task).toMatchObject({ status: "completed", result: "# Title\ndraft two", currentIteration: 2 });
    expect(seen).toEqual(["draft one", "# Title\ndraft two"]);
    const second = (await upstreamRequests(c))[1].body.messages;
    expect(JSON.stringify(second[second.length - 1])).toContain("Needs a title line");
    await ws.waitFor((f) => f.some((x) => x.event === "task:progress"));
    expect(ws.events("task:progress")[0].data).toMatchObject({ iteration: 1, feedback: "Needs a title line" });
    expect(ws.events("task:evaluated").map((f) => f.data.accepted)).toEqual([false, true]);
    ws.close();
  });

  it("fails a task whose results are never accepted, after its iterations", async () => {
    const failed: string[] = [];
    install({
      name: "never-happy",
      version: "1.0.0",
      register: () => ({
        onTaskComplete() {
          throw new Error("Still wrong");
        },
        onTaskFailed(_task, reason) {
          failed.push(reason);
        },
      }),
    });
    const [p, c] = [marker("p"), marker("c")];
    await script(c, [{ kind: "text", text: "try 1" }, { kind: "text", text: "try 2" }]);
    const { parent, ws } = await startDelegation(p, c, " maxIterations=2");
    const task = await finalTask(parent.id);
    expect(task).toMatchObject({ status: "failed", currentIteration: 2, maxIterations: 2 });
    expect(task.result).toContain("Still wrong");
    expect(failed).toHaveLength(1);
    await ws.waitFor((f) => f.some((x) => x.event === "thread:notification"), 10_000);
    expect(ws.events("task:failed")[0].data.task.status).toBe("failed");
    expect(ws.events("thread:notification")[0].data.status).toBe("failed");
    ws.close();
  });

  it("refuses a delegation past the depth limit", async () => {
    await api("/api/plugins/delegation", { method: "PATCH", body: { settings: { maxDepth: 1 } } });
    try {
      const [p, c] = [marker("p"), marker("c")];
      await script(c, [{ kind: "text", text: `I will delegate further.\n/delegate go deeper ${c}` }]);
      const { parent, ws } = await startDelegation(p, c);
      const task = await finalTask(parent.id);
      const childTexts = await until(
        async () => (await messagesOf(task.threadId, "?kinds=text")).messages,
        (ms) => ms.some((m) => m.role === "system"),
      );
      expect(childTexts.find((m) => m.role === "system")!.content).toBe("Delegation refused: Delegation depth limit reached (1)");
      expect(await tasksOf(task.threadId)).toHaveLength(1); // only its own: no grandchild task
      ws.close();
    } finally {
      await api("/api/plugins/delegation", { method: "PATCH", body: { settings: { maxDepth: 2 } } });
    }
  });

  it("cancels a running task: the child stops, the parent is told, nothing runs again", async () => {
    const [p, c] = [marker("p"), marker("c")];
    await script(c, [{ kind: "hang", afterText: "working on" }]);
    const { parent, ws } = await startDelegation(p, c);
    const [running] = await until(() => tasksOf(parent.id), (t) => t[0]?.status === "running");
    const childWs = await Socket.open(running.threadId, "?since=0");
    await childWs.waitFor((f) => f.some((x) => x.event === "pipeline:stream"));
    const res = await api(`/api/tasks/${running.id}/cancel`, { method: "POST" });
    expect(res.status).toBe(202);
    expect((await res.json<any>()).task.status).toBe("cancelled");
    await childWs.waitForRunEnd();
    expect(childWs.events("pipeline:error")[0].data.code).toBe("aborted");
    await ws.waitFor((f) => f.some((x) => x.event === "thread:notification"));
    expect(ws.events("task:failed")[0].data.task.status).toBe("cancelled");
    expect((await api(`/api/tasks/${running.id}/cancel`, { method: "POST" })).status).toBe(409);
    // Sync point: a message to the parent runs after anything the notification could have queued.
    const next = await api(`/api/threads/${parent.id}/messages`, { body: { content: "after the cancel" } });
    const nextId = (await next.json<any>()).message.id;
    await ws.waitForRunEnd(2);
    expect(ws.events("pipeline:start").map((f) => f.data.messageId)[1]).toBe(nextId); // the notification did not run the parent
    expect((await tasksOf(parent.id))[0].status).toBe("cancelled");
    expect((await api(`/api/tasks/task_nope/cancel`, { method: "POST" })).status).toBe(404);
    ws.close();
    childWs.close();
  });

  it("carries a /checkin from the task thread into the parent", async () => {
    const [p, c] = [marker("p"), marker("c")];
    await script(c, [{ kind: "text", text: "/checkin halfway through the report\nDone: the summary." }]);
    const { parent, ws } = await startDelegation(p, c);
    const task = await finalTask(parent.id);
    await ws.waitFor((f) => f.some((x) => x.event === "task:checkin"));
    expect(ws.events("task:checkin")[0].data).toMatchObject({ threadId: parent.id, message: "halfway through the report", task: { id: task.id } });
    const texts = (await messagesOf(parent.id, "?kinds=text")).messages.map((m) => m.content);
    expect(texts).toContain(`[Check-in from task thread ${task.threadId}]: halfway through the report`);
    ws.close();
  });

  it("resumes a task's loop after the child's object restarts mid-iteration", async () => {
    const [p, c] = [marker("p"), marker("c")];
    await script(c, [{ kind: "hang", afterText: "partial" }, { kind: "text", text: "Finished after the restart." }]);
    const { parent, ws } = await startDelegation(p, c);
    const [running] = await until(() => tasksOf(parent.id), (t) => t[0]?.status === "running");
    await until(() => upstreamRequests(c), (r) => r.length === 1);
    await abortAllDurableObjects();
    // Any request wakes the child's object; its alarm would too, a moment later.
    await api(`/api/prewarm`, { body: { threadId: running.threadId } });
    const task = await finalTask(parent.id);
    expect(task).toMatchObject({ status: "completed", result: "Finished after the restart.", currentIteration: 1 });
    const lastText = (r: any) => r.body.messages[r.body.messages.length - 1].content[0].text as string;
    const childRequests = (await upstreamRequests(c)).filter((r) => lastText(r).endsWith(`summarise the report ${c}`));
    expect(childRequests).toHaveLength(2);
    ws.close();
  });

  it("fails a task that passes its cost cap instead of iterating again", async () => {
    install({ name: "picky", version: "1.0.0", register: () => ({ onTaskComplete: () => { throw new Error("Not yet"); } }) });
    await api("/api/plugins/delegation", { method: "PATCH", body: { settings: { costCapUsd: 0.000001 } } });
    try {
      const [p, c] = [marker("p"), marker("c")];
      await script(c, [{ kind: "text", text: "expensive attempt", usage: { input_tokens: 1000, output_tokens: 1000 } }]);
      const { parent, ws } = await startDelegation(p, c);
      const task = await finalTask(parent.id);
      expect(task.status).toBe("failed");
      expect(task.currentIteration).toBe(1);
      expect(task.result).toMatch(/^Cost cap of \$0.000001 reached/);
      expect(task.costUsd).toBeGreaterThan(0.000001);
      ws.close();
    } finally {
      await api("/api/plugins/delegation", { method: "PATCH", body: { settings: { costCapUsd: 2 } } });
    }
  });

  it("refuses more concurrent tasks per parent than the limit", async () => {
    const [p, c] = [marker("p"), marker("c")];
    await script(c, Array.from({ length: 3 }, () => ({ kind: "hang" as const })));
    const parent = await createThread({ name: "busy parent" });
    const ws = await Socket.open(parent.id);
    const lines = [1, 2, 3, 4].map((i) => `/delegate part ${i} ${c}`).join("\n");
    await script(p, [{ kind: "text", text: `Splitting it up.\n${lines}` }]);
    await api(`/api/threads/${parent.id}/messages`, { body: { content: `split ${p}` } });
    await ws.waitForRunEnd();
    expect(ws.events("pipeline:complete")[0].data.commandsHandled).toEqual(["delegate", "delegate", "delegate", "delegate"]);
    const tasks = await tasksOf(parent.id);
    expect(tasks).toHaveLength(3);
    const texts = (await messagesOf(parent.id, "?kinds=text")).messages.map((m) => m.content);
    expect(texts).toContain("Delegation refused: Too many tasks in progress for this thread (limit 3)");
    for (const t of tasks) expect((await api(`/api/tasks/${t.id}/cancel`, { method: "POST" })).status).toBe(202);
    ws.close();
  });

  it("takes a /delegate the user typed, once however often and in whatever words the model repeats it", async () => {
    const [p, c] = [marker("p"), marker("c")];
    await script(c, [{ kind: "text", text: "Done by the sub-agent." }]);
    const echoes = [`/delegate translate the memo ${c}`, `/delegate translate the memo ${c}`, `/delegate   Translate the memo, please ${c}`];
    await script(p, [
      { kind: "text", text: `Delegating as you asked.\n${echoes.join("\n")}` },
      { kind: "text", text: "Noted." },
    ]);
    const parent = await createThread({ name: "typed command" });
    const ws = await Socket.open(parent.id);
    await api(`/api/threads/${parent.id}/messages`, { body: { content: `/delegate translate the memo ${c}\n${p}` } });
    const task = await finalTask(parent.id);
    expect(task).toMatchObject({ status: "completed", prompt: `translate the memo ${c}` });
    expect(await tasksOf(parent.id)).toHaveLength(1);
    expect(ws.events("pipeline:complete")[0].data.commandsHandled).toEqual(["delegate"]);
    ws.close();
  });

  it("refuses a task on a model the deployment does not offer, and stores no task", async () => {
    const p = marker("p");
    await script(p, [{ kind: "text", text: "/delegate do it model=<b>x</b>;DROP" }]);
    const parent = await createThread({ name: "bad model" });
    const ws = await Socket.open(parent.id);
    await api(`/api/threads/${parent.id}/messages`, { body: { content: p } });
    await ws.waitForRunEnd();
    const notes = await until(() => messagesOf(parent.id), (r) => r.messages.some((m: any) => m.content.startsWith("Delegation refused")));
    expect(notes.messages.find((m: any) => m.content.startsWith("Delegation refused")).content).toContain("Unknown model");
    expect(await tasksOf(parent.id)).toEqual([]);
    ws.close();
  });

  it("holds a task to the maxIterations setting, whatever the command asks for", async () => {
    const patch = (settings: object) => api("/api/plugins/delegation", { method: "PATCH", body: { settings } });
    expect((await patch({ maxIterations: 2 })).status).toBe(200);
    try {
      const [p, c] = [marker("p"), marker("c")];
      await script(c, [{ kind: "text", text: "A result." }]);
      const { parent, ws } = await startDelegation(p, c, " maxIterations=9");
      const task = await finalTask(parent.id);
      expect(task.maxIterations).toBe(2);
      ws.close();
    } finally {
      await patch({ maxIterations: 5 });
    }
  });
});
