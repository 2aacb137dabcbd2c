// Code execution's cost and bound (issue 35): a run's container time is priced (the API's $0.05 an
// hour, at least five minutes) and counted in its usage and cost, so the spend cap and the usage page
// include it; and an answer runs code at most CODE_RUNS_PER_RUN times (3 in the tests): the response
// that would run once more is cut where that run begins, and the model finishes in words, its tools off.
import { afterEach, describe, expect, it } from "vitest";
import { costUsd } from "../../worker/invoker/prices";
import { api, createThread, json, marker, script, settle, Socket, upstreamRequests } from "../helpers";

afterEach(() => settle());

const run = (i: number) => [
  { type: "server_tool_use", name: "bash_code_execution", input: { command: `python3 step${i}.py` } },
  { type: "bash_code_execution_tool_result", stdout: `step ${i}\n`, returnCode: 0 },
];

describe("code execution's bound and cost", () => {
  it("an answer that would run code a fourth time is cut there, and finishes in words with its tools off", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const m = marker("loop");
    await script(m, [
      { kind: "blocks", blocks: [{ type: "text", text: "Trying again and again." }, ...[1, 2, 3, 4, 5].flatMap(run), { type: "text", text: "Never reached." }] } as any,
      { kind: "text", text: "Steps 1 to 3 ran; I stopped there." },
    ]);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: `loop ${m}` } });
    await ws.waitForRunEnd(1, 20_000);

    expect(ws.events("code:output").map((f) => f.data.stdout)).toEqual(["step 1\n", "step 2\n", "step 3\n"]);
    const requests = await upstreamRequests(m);
    expect(requests).toHaveLength(2);
    const last = requests[1].body;
    expect(last.tool_choice).toEqual({ type: "none" });
    // What the model sent back is whole: its three runs, each with its result; the fourth is not there.
    const kept = last.messages.at(-2);
    expect(kept.role).toBe("assistant");
    expect(kept.content.filter((b: any) => b.type === "server_tool_use").map((b: any) => b.input.command)).toEqual(["python3 step1.py", "python3 step2.py", "python3 step3.py"]);
    expect(kept.content.filter((b: any) => b.type === "bash_code_execution_tool_result")).toHaveLength(3);
    expect(JSON.stringify(last.messages.at(-1))).toContain("run code 3 times");
    expect(ws.events("pipeline:complete")).toHaveLength(1);
    const { messages } = await json(api(`/api/threads/${thread.id}/messages`));
    const answer = messages.find((x: any) => x.role === "assistant" && x.kind === "text");
    expect(answer.content).toContain("Steps 1 to 3 ran; I stopped there.");
    expect(answer.content).not.toContain("Never reached.");
    expect(answer.metadata.codeRuns).toHaveLength(3);
    expect(answer.metadata.usage.serverToolUses).toMatchObject({ code_execution: 3 });
    // The activity records see each code run as a tool call with its result.
    const calls = messages.filter((x: any) => x.kind === "tool_call").map((x: any) => x.metadata);
    expect(calls.map((c: any) => [c.toolName, c.input.command])).toEqual([1, 2, 3].map((i) => ["bash_code_execution", `python3 step${i}.py`]));
    const results = messages.filter((x: any) => x.kind === "tool_result");
    expect(results.map((x: any) => [x.metadata.toolName, x.metadata.isError, x.content])).toEqual([1, 2, 3].map((i) => ["bash_code_execution", false, `exit 0\nstep ${i}\n`]));
    ws.close();
  });

  it("stopping a run while its code runs stops the request: the run ends aborted at once, its code run kept without output", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const m = marker("stop-code");
    await script(m, [{ kind: "code", text: "Running it now.", command: "sleep 60", stdout: "done\n", returnCode: 0, resultDelayMs: 15_000, answer: "Never." } as any]);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: `wait ${m}` } });
    await ws.waitFor((frames) => frames.some((f) => f.event === "pipeline:stream" && f.data.type === "server_tool_call"), 10_000, "the code's call");
    const stoppedAt = Date.now();
    expect((await api(`/api/threads/${thread.id}/stop`, { method: "POST" })).status).toBe(202);
    await ws.waitForRunEnd(1, 5_000);
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    expect(ws.events("pipeline:error").map((f) => f.data.code)).toEqual(["aborted"]);
    expect(ws.events("code:output")).toEqual([]);
    const { messages } = await json(api(`/api/threads/${thread.id}/messages`));
    const answer = messages.find((x: any) => x.role === "assistant" && x.kind === "text");
    expect(answer.metadata).toMatchObject({ aborted: true, codeRuns: [{ toolName: "bash_code_execution", input: { command: "sleep 60" }, files: [] }] });
    expect(answer.metadata.codeRuns[0].returnCode).toBeUndefined();
    ws.close();
  });

  it("a run's container time is in its usage and its cost (at least five minutes, at $0.05 an hour)", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const m = marker("cost");
    await script(m, [{ kind: "code", command: "python3 -c 'print(1)'", stdout: "1\n", returnCode: 0, answer: "One.", usage: { input_tokens: 1000, output_tokens: 100 } } as any]);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: `count ${m}` } });
    await ws.waitForRunEnd(1, 20_000);
    const { messages } = await json(api(`/api/threads/${thread.id}/messages`));
    const answer = messages.find((x: any) => x.role === "assistant" && x.kind === "text");
    const usage = answer.metadata.usage;
    expect(usage).toMatchObject({ containerSeconds: 300, serverToolUses: { code_execution: 1 } });
    const withoutCode = costUsd(thread.model, { ...usage, containerSeconds: undefined });
    expect(costUsd(thread.model, usage) - withoutCode).toBeCloseTo((300 / 3600) * 0.05, 4);
    // The usage page (and the spend cap, which settles the same cost) sees it.
    const metrics = await json(api(`/api/metrics?threadId=${thread.id}`));
    expect(metrics.runs[0].costUsd).toBeCloseTo(costUsd(thread.model, usage), 4);

    // A run without code pays no container time.
    const plain = marker("plain");
    await script(plain, [{ kind: "text", text: "No code." }]);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: plain } });
    await ws.waitForRunEnd(2);
    const again = await json(api(`/api/threads/${thread.id}/messages`));
    const second = again.messages.filter((x: any) => x.role === "assistant" && x.kind === "text").at(-1);
    expect(second.metadata.usage.containerSeconds).toBeUndefined();
    ws.close();
  });
});
