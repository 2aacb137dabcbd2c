// Code execution (PROTOCOL.md, "Code execution"): the code plugin offers the Messages API's tool at the
// newest version the run's model takes (the catalog's word), where the deployment and the thread have
// it on; the container a run ran code in is the thread's next run's, and one that expired is replaced
// by a new one without failing the run. Against the fake upstream, which speaks the API's code blocks.
import { describe, expect, it } from "vitest";
import { configOf } from "../../worker/env";
import { codePlugin } from "../../worker/plugins/code";
import { BUILT_IN_MODELS, unknownModel } from "../../worker/invoker/catalog";
import { pngOf } from "../images";
import { api, createThread, json, marker, script, settle, Socket, upstream, upstreamRequests } from "../helpers";

const codeTool = (body: any) => (body.tools ?? []).find((t: any) => t.name === "code_execution");

/** One message whose answer runs `command` (printing `stdout`), on the thread's socket; its frames. */
async function runCode(threadId: string, ws: Socket, runs: number, command: string, stdout: string) {
  const m = marker("code");
  await script(m, [{ kind: "code", command, stdout, returnCode: 0, answer: `It printed ${stdout.trim()}.` } as any]);
  expect((await api(`/api/threads/${threadId}/messages`, { body: { content: `run it ${m}` } })).status).toBe(202);
  await ws.waitForRunEnd(runs, 20_000);
  return { m, requests: await upstreamRequests(m) };
}

describe("the code plugin", () => {
  it("offers the tool at the version the model takes, never to a model that takes none or to the offline model", () => {
    const request = (model: string, extra: Record<string, unknown> = {}) => ({
      model: BUILT_IN_MODELS.find((x) => x.id === model) ?? unknownModel(model),
      thread: { codeExecution: undefined } as any,
      codeExecution: true,
      offline: false,
      ...extra,
    });
    const definition = (r: any) => codePlugin.builtinTools![0].definition({}, r);
    expect(definition(request("claude-sonnet-4-6"))).toEqual({ type: "code_execution_20260521", name: "code_execution" });
    expect(definition(request("claude-haiku-4-5"))).toEqual({ type: "code_execution_20250825", name: "code_execution" });
    expect(definition(request("claude-fake-plain"))).toBeNull();
    expect(definition(request("claude-sonnet-4-6", { offline: true }))).toBeNull();
    expect(definition(request("claude-sonnet-4-6", { codeExecution: false }))).toBeNull();
    expect(definition(request("claude-sonnet-4-6", { thread: { codeExecution: false } }))).toBeNull();
    // CODE_EXECUTION: on by default where a model key is set; "0" turns it off.
    expect(configOf({ ANTHROPIC_API_KEY: "k" } as any).codeExecution).toBe(true);
    expect(configOf({ ANTHROPIC_API_KEY: "k", CODE_EXECUTION: "0" } as any).codeExecution).toBe(false);
    expect(configOf({} as any).codeExecution).toBe(false);
  });

  it("a run whose code prints a result: the tool goes with the request, the result stays in the transcript, the answer uses it", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const { requests } = await runCode(thread.id, ws, 1, "python3 -c 'print(6*7)'", "42\n");
    expect(codeTool(requests[0].body)).toEqual({ type: "code_execution_20260521", name: "code_execution" });
    expect(requests[0].body.container).toBeUndefined();
    const { messages } = await json(api(`/api/threads/${thread.id}/messages`));
    expect(messages.filter((x: any) => x.role === "assistant" && x.kind === "text").map((x: any) => x.content)).toEqual(["It printed 42."]);
    const runId = ws.events("pipeline:start")[0].data.runId;
    expect(ws.events("code:container").map((f) => f.data)).toEqual([{ threadId: thread.id, runId, status: "new" }]);
    ws.close();
    await settle();
  });

  it("reuses the thread's container in its next run, and replaces one that expired without failing the run", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const first = await runCode(thread.id, ws, 1, "python3 -c 'x = 6*7; print(x)'", "42\n");
    const containers = await upstream.containers();
    const made = containers.at(-1)!.id;
    const second = await runCode(thread.id, ws, 2, "python3 -c 'print(x + 1)'", "43\n");
    expect(second.requests[0].body.container).toBe(made);
    expect(first.requests[0].body.container).toBeUndefined();

    await upstream.expireContainer(made);
    const third = await runCode(thread.id, ws, 3, "ls", "\n");
    // The request that named it was refused; the one that answered asked for a new container.
    expect(third.requests.at(-1)!.body.container).toBeUndefined();
    const ends = ws.events().filter((f) => f.event === "pipeline:complete" || f.event === "pipeline:error");
    expect(ends.map((f) => f.event)).toEqual(["pipeline:complete", "pipeline:complete", "pipeline:complete"]);
    expect(ws.events("code:container").map((f) => f.data.status)).toEqual(["new", "reused", "expired"]);
    ws.close();
    await settle();
  });

  it("a branch's run does not build on another branch's container: an edit starts a new one, and says why", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    await runCode(thread.id, ws, 1, "python3 -c 'x = 1'", "\n");
    const first = (await upstream.containers()).at(-1)!.id;
    const { messages } = await json(api(`/api/threads/${thread.id}/messages`));
    const asked = messages.find((x: any) => x.role === "user");

    // The edit is another branch from the same point: the first branch's variables are not its own.
    const m = marker("edit");
    await script(m, [{ kind: "code", command: "python3 -c 'print(2)'", stdout: "2\n", returnCode: 0, answer: "Two." } as any]);
    expect((await api(`/api/threads/${thread.id}/messages/${asked.id}/edit`, { body: { content: `edited ${m}` } })).status).toBe(202);
    await ws.waitForRunEnd(2, 20_000);
    const [edited] = await upstreamRequests(m);
    expect(edited.body.container).toBeUndefined();
    expect(ws.events("code:container").map((f) => f.data).at(-1)).toEqual({ threadId: thread.id, runId: ws.events("pipeline:start")[1].data.runId, status: "new", reason: "branch" });
    const second = (await upstream.containers()).at(-1)!.id;
    expect(second).not.toBe(first);

    // Going on along the new branch runs in its container.
    const next = await runCode(thread.id, ws, 3, "python3 -c 'print(3)'", "3\n");
    expect(next.requests[0].body.container).toBe(second);
    expect(ws.events("code:container").map((f) => f.data.status).at(-1)).toBe("reused");
    ws.close();
    await settle();
  });

  it("a chart the code wrote is fetched from the Files API, kept in R2, listed with the thread's files and downloaded", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const png = pngOf(64, 48);
    const m = marker("chart");
    const files = [{ name: "chart.png", mediaType: "image/png", base64: png }];
    await script(m, [{ kind: "code", command: "python3 plot.py", stdout: "saved chart.png\n", returnCode: 0, files, answer: "Here is the chart." } as any]);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: `plot it ${m}` } });
    await ws.waitForRunEnd(1, 20_000);
    const runId = ws.events("pipeline:start")[0].data.runId;
    const [output] = ws.events("code:output").map((f) => f.data);
    expect(output).toMatchObject({ threadId: thread.id, runId, stdout: "saved chart.png\n", returnCode: 0 });
    expect(output.files).toEqual([{ id: expect.stringMatching(/^fil_/), threadId: thread.id, runId, name: "chart.png", mediaType: "image/png", bytes: expect.any(Number), createdAt: expect.any(Number) }]);
    // It went out before the run completed: the run's end waited for the file.
    const order = ws.events().map((f) => f.event);
    expect(order.indexOf("code:output")).toBeLessThan(order.indexOf("pipeline:complete"));

    const listed = await json(api(`/api/threads/${thread.id}/files`));
    expect(listed.files).toEqual(output.files);
    const res = await api(`/api/threads/${thread.id}/files/${output.files[0].id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="chart.png"');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(btoa(String.fromCharCode(...bytes))).toBe(png);
    expect(output.files[0].bytes).toBe(bytes.byteLength);
    expect((await api(`/api/threads/${thread.id}/files/fil_nothere`)).status).toBe(404);
    ws.close();
    await settle();
  });

  it("a thread switched off offers no tool, and says so in its settings", async () => {
    const thread = await createThread();
    const patched = await json(api(`/api/threads/${thread.id}`, { method: "PATCH", body: { codeExecution: false } }));
    expect(patched.thread.codeExecution).toBe(false);
    const ws = await Socket.open(thread.id);
    const m = marker("nocode");
    await script(m, [{ kind: "text", text: "No code here." }]);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: m } });
    await ws.waitForRunEnd(1);
    expect(codeTool((await upstreamRequests(m))[0].body)).toBeUndefined();
    expect((await json(api(`/api/threads/${thread.id}`))).thread.codeExecution).toBe(false);
    // On again: offered again, and the setting reads as the default (absent).
    const on = await json(api(`/api/threads/${thread.id}`, { method: "PATCH", body: { codeExecution: true } }));
    expect(on.thread.codeExecution).toBeUndefined();
    ws.close();
    await settle();
  });
});
