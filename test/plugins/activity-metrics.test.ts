// The activity plugin (a run's steps, thinking and tool calls stored as messages) and the metrics
// plugin (each run's usage in the owner's object, /api/metrics, an Analytics Engine point), after real runs.
import { describe, expect, it } from "vitest";
import { costUsd } from "../../worker/invoker/prices";
import { marker, messagesOf, script, Socket } from "../helpers";
import { analyticsOf, asLocal, freshUser, newThread, runTurn, type Call } from "./util";

/** US dollars per million tokens (worker/invoker/prices.ts), written out independently. */
function expectedCost(prices: { input: number; output: number }, u: { inputTokens: number; outputTokens: number; cacheWriteTokens: number; cacheReadTokens: number }) {
  const dollars = (u.inputTokens * prices.input + u.outputTokens * prices.output + u.cacheWriteTokens * prices.input * 1.25 + u.cacheReadTokens * prices.input * 0.1) / 1e6;
  return Math.round(dollars * 1e6) / 1e6;
}
const SONNET = { input: 3, output: 15 };
const HAIKU_4 = { input: 1, output: 5 };

async function metrics(call: Call, query = "") {
  const res = await call(`/api/metrics${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json<{ runs: any[]; totals: any }>();
}

const label = (x: any) => `${x.kind}:${x.kind === "pipeline_step" || x.kind === "status" ? x.content : x.role}`;

describe("the activity plugin", () => {
  it("stores a run's start, steps, thinking, tool call and result, and completion, all with the runId", async () => {
    const thread = await newThread();
    const m = marker("act");
    await script(m, [
      {
        kind: "tool_use",
        text: "Let me check.",
        thinking: { text: "Need the time.", signature: "sig-act-1" },
        tools: [
          { name: "time__current_time", input: {}, id: "toolu_act_time" },
          { name: "nope__missing", input: { q: "x" }, id: "toolu_act_missing" },
        ],
        usage: { input_tokens: 1000, output_tokens: 200, cache_creation_input_tokens: 400, cache_read_input_tokens: 0 },
      },
      {
        kind: "text",
        text: "It is late.",
        thinking: { text: "Got the time.", signature: "sig-act-2" },
        usage: { input_tokens: 1500, output_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 2000 },
      },
    ]);
    const ws = await Socket.open(thread.id);
    const { message: user, end } = await runTurn(ws, thread.id, `what time? ${m}`);
    expect(end.event).toBe("pipeline:complete");
    const runId = ws.events("pipeline:start")[0].data.runId;

    const all = (await messagesOf(thread.id)).messages;
    expect(all[0]).toMatchObject({ id: user.id, role: "user", kind: "text" });
    const activity = all.filter((x) => x.source === "activity");
    expect(activity.map(label)).toEqual([
      "status:pipeline_start",
      "pipeline_step:onMessage",
      "pipeline_step:onBeforeInvoke",
      "pipeline_step:invoking",
      "thinking:assistant",
      "tool_call:assistant",
      "tool_call:assistant",
      "tool_result:system",
      "tool_result:system",
      "thinking:assistant",
      "pipeline_step:onAfterInvoke",
      "status:pipeline_complete",
    ]);
    for (const row of activity) {
      expect(row.threadId).toBe(thread.id);
      expect(row.metadata.runId).toBe(runId);
    }
    const [start, onMessage, onBefore, invoking, think1, call1, call2, result1, result2, think2, onAfter, complete] = activity;
    expect(start).toMatchObject({ role: "system", metadata: { runId, messageId: user.id } });
    expect(onMessage.metadata).toEqual({ runId, step: "onMessage", detail: null });
    expect(onBefore.metadata.detail).toMatch(/^system \d+ chars, prompt \d+ chars$/);
    expect(invoking.metadata).toEqual({ runId, step: "invoking", detail: thread.model });
    expect(think1).toMatchObject({ content: "Need the time.", model: thread.model });
    expect(think2.content).toBe("Got the time.");
    expect(call1).toMatchObject({
      content: "{}",
      model: thread.model,
      metadata: { runId, toolUseId: "toolu_act_time", toolName: "time__current_time", input: {} },
    });
    expect(call2).toMatchObject({ content: '{"q":"x"}', metadata: { toolUseId: "toolu_act_missing", toolName: "nope__missing", input: { q: "x" } } });
    expect(result1.content).toMatch(/\(\d{4}-\d{2}-\d{2}T[^)]+Z\)$/);
    expect(result1.metadata).toEqual({ runId, toolUseId: "toolu_act_time", toolName: "time__current_time", isError: false });
    expect(result2).toMatchObject({ content: "Unknown tool: nope__missing", metadata: { toolUseId: "toolu_act_missing", isError: true } });
    expect(onAfter.metadata).toMatchObject({ runId, step: "onAfterInvoke", detail: expect.stringMatching(/^2800 tokens, \d+ms$/) });
    expect(complete).toMatchObject({ role: "system", content: "pipeline_complete" });
    expect(complete.metadata).toEqual({
      runId,
      durationMs: expect.any(Number),
      usage: { inputTokens: 2500, outputTokens: 300, cacheWriteTokens: 400, cacheReadTokens: 2000 },
    });
    expect(complete.metadata.durationMs).toBeGreaterThanOrEqual(0);
    expect(complete.metadata.durationMs).toBe(end.data.durationMs);

    // One step row per step broadcast.
    expect(activity.filter((x) => x.kind === "pipeline_step").map((x) => x.content)).toEqual(ws.events("pipeline:step").map((f) => f.data.step));

    // The core's own message: the assistant's text, once, within the run's rows.
    const texts = all.filter((x) => x.kind === "text");
    expect(texts.map((x) => [x.role, x.source, x.content])).toEqual([
      ["user", "web", `what time? ${m}`],
      ["assistant", "assistant", "Let me check.\n\nIt is late."],
    ]);
    const assistant = texts[1];
    expect(assistant.metadata).toMatchObject({ runId, usage: { inputTokens: 2500, outputTokens: 300 } });
    const pos = (row: any) => all.findIndex((x) => x.id === row.id);
    expect(pos(assistant)).toBeGreaterThan(pos(result2));
    expect(pos(assistant)).toBeLessThan(pos(complete));
    // Nothing but the user's message, the activity rows and the answer.
    expect(all).toHaveLength(activity.length + 2);
    ws.close();
  });

  // Activity rows are stored at the run's end but stamped with the object's clock when each step
  // happened, as the core stamps the answer: every row of a thread lists in the order it happened.
  it("lists the assistant's answer after the onAfterInvoke step, strictly later", async () => {
    const thread = await newThread();
    const ws = await Socket.open(thread.id);
    await runTurn(ws, thread.id, "order please");
    const all = (await messagesOf(thread.id)).messages;
    const step = all.find((x) => x.kind === "pipeline_step" && x.content === "onAfterInvoke")!;
    const answer = all.find((x) => x.kind === "text" && x.role === "assistant")!;
    expect(answer.createdAt).toBeGreaterThan(step.createdAt);
    expect(all.indexOf(answer)).toBeGreaterThan(all.indexOf(step));
    ws.close();
  });

  it("stores a failed run's steps so far and a pipeline_error status with its code, and no answer", async () => {
    const thread = await newThread();
    const m = marker("act-fail");
    await script(m, [{ kind: "error", status: 400, message: "messages: refused for the test" }]);
    const ws = await Socket.open(thread.id);
    const { end } = await runTurn(ws, thread.id, `fail please ${m}`);
    expect(end.event).toBe("pipeline:error");
    expect(end.data.code).toBe("invalid_request");
    const runId = ws.events("pipeline:start")[0].data.runId;

    const all = (await messagesOf(thread.id)).messages;
    expect(all.map(label)).toEqual([
      "text:user",
      "status:pipeline_start",
      "pipeline_step:onMessage",
      "pipeline_step:onBeforeInvoke",
      "pipeline_step:invoking",
      "status:pipeline_error",
    ]);
    expect(all[all.length - 1].metadata).toEqual({
      runId,
      durationMs: expect.any(Number),
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      code: "invalid_request",
      message: "The model API refused the request: messages: refused for the test",
      retryable: false,
    });
    ws.close();
  });
});

describe("the metrics plugin and /api/metrics", () => {
  it("records each run with the scripted tokens and the price table's cost; totals sum; threadId and since filter", async () => {
    const thread = await newThread();
    const points = await analyticsOf(thread.id);
    const m = marker("met");
    await script(m, [
      { kind: "tool_use", tools: [{ name: "time__current_time", input: {}, id: "toolu_met" }], usage: { input_tokens: 1000, output_tokens: 200, cache_creation_input_tokens: 400, cache_read_input_tokens: 0 } },
      { kind: "text", text: "first", usage: { input_tokens: 1500, output_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 2000 } },
      { kind: "text", text: "second", usage: { input_tokens: 500, output_tokens: 50, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
    ]);
    const ws = await Socket.open(thread.id);
    await runTurn(ws, thread.id, `one ${m}`);
    const firstRunId = ws.events("pipeline:start")[0].data.runId;
    await runTurn(ws, thread.id, `two ${m}`, 2);
    const secondRunId = ws.events("pipeline:start")[1].data.runId;
    ws.close();

    const u1 = { inputTokens: 2500, outputTokens: 300, cacheWriteTokens: 400, cacheReadTokens: 2000 };
    const u2 = { inputTokens: 500, outputTokens: 50, cacheWriteTokens: 0, cacheReadTokens: 0 };
    const c1 = expectedCost(SONNET, u1);
    const c2 = expectedCost(SONNET, u2);
    expect(thread.model).toMatch(/sonnet/);
    expect(c1).toBe(0.0141);
    expect(c2).toBe(0.00225);
    expect(costUsd(thread.model, u1)).toBe(c1);

    const { runs, totals } = await metrics(asLocal, `?threadId=${thread.id}`);
    expect(runs.map((r) => r.id)).toEqual([secondRunId, firstRunId]); // newest first
    const [r2, r1] = runs;
    expect(Object.keys(r1).sort()).toEqual(
      ["cacheReadTokens", "cacheWriteTokens", "costUsd", "durationMs", "id", "inputTokens", "model", "outputTokens", "startedAt", "status", "taskId", "threadId", "threadName"],
    );
    expect(r1).toMatchObject({ threadId: thread.id, taskId: null, model: thread.model, status: "completed", ...u1, costUsd: c1 });
    expect(r2).toMatchObject({ threadId: thread.id, status: "completed", ...u2, costUsd: c2 });
    expect(r1.durationMs).toBeGreaterThanOrEqual(0);
    expect(r2.startedAt).toBeGreaterThan(r1.startedAt);
    expect(totals).toEqual({
      runs: 2,
      inputTokens: 3000,
      outputTokens: 350,
      cacheReadTokens: 2000,
      cacheWriteTokens: 400,
      costUsd: 0.01635,
    });

    // since: runs started at or after it.
    expect((await metrics(asLocal, `?threadId=${thread.id}&since=${r1.startedAt}`)).runs.map((r) => r.id)).toEqual([secondRunId, firstRunId]);
    const onlySecond = await metrics(asLocal, `?threadId=${thread.id}&since=${r2.startedAt}`);
    expect(onlySecond.runs.map((r) => r.id)).toEqual([secondRunId]);
    expect(onlySecond.totals).toEqual({ runs: 1, inputTokens: 500, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: c2 });
    expect(await metrics(asLocal, `?threadId=${thread.id}&since=${r2.startedAt + 1}`)).toMatchObject({
      runs: [],
      totals: { runs: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
    });

    // Each run's data point for Analytics Engine (worker/plugins/metrics/data-point.ts).
    expect(points).toEqual([
      { indexes: ["local"], blobs: ["local", thread.model, "completed", thread.id, firstRunId], doubles: [2500, 300, 2000, 400, c1, r1.durationMs, 0, 0, 0, 0] },
      { indexes: ["local"], blobs: ["local", thread.model, "completed", thread.id, secondRunId], doubles: [500, 50, 0, 0, c2, r2.durationMs, 0, 0, 0, 0] },
    ]);
  });

  it("prices by the thread's model, and keeps each user's metrics to that user", async () => {
    const user = freshUser("metrics");
    expect(await metrics(user.call)).toEqual({
      runs: [],
      totals: { runs: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
      // Today's spend is the user's whatever the filters; the cap is the deployment's (test bindings: 50).
      limits: { spentTodayUsd: 0, dailyCapUsd: 50 },
    });
    const thread = await newThread(user.call, { model: "claude-haiku-4-5" });
    const m = marker("haiku");
    await script(m, [{ kind: "text", text: "cheap", usage: { input_tokens: 1000, output_tokens: 1000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } }]);
    const ws = await user.socket(thread.id);
    await runTurn(ws, thread.id, `hi ${m}`, 1, user.call);
    ws.close();
    const mine = await metrics(user.call);
    expect(mine.runs).toHaveLength(1);
    expect(mine.runs[0]).toMatchObject({ threadId: thread.id, model: "claude-haiku-4-5", inputTokens: 1000, outputTokens: 1000, costUsd: 0.006 });
    expect(expectedCost(HAIKU_4, { inputTokens: 1000, outputTokens: 1000, cacheWriteTokens: 0, cacheReadTokens: 0 })).toBe(0.006);
    expect(mine.totals).toMatchObject({ runs: 1, costUsd: 0.006 });
    // The default user does not see it, even by thread id.
    expect((await metrics(asLocal, `?threadId=${thread.id}`)).runs).toEqual([]);
    expect((await metrics(asLocal)).runs.map((r) => r.id)).not.toContain(mine.runs[0].id);
  });

  it("records a failed run (400 upstream) with its failure status and what was billed before it failed", async () => {
    const thread = await newThread();
    const m = marker("met-fail");
    await script(m, [{ kind: "error", status: 400, message: "messages: refused" }]);
    const ws = await Socket.open(thread.id);
    const { end } = await runTurn(ws, thread.id, `fail ${m}`);
    expect(end.event).toBe("pipeline:error");
    const failedRunId = ws.events("pipeline:start")[0].data.runId;

    // Then one that fails after a paid tool turn: the tokens of that turn count.
    const m2 = marker("met-fail2");
    await script(m2, [
      { kind: "tool_use", tools: [{ name: "time__current_time", input: {}, id: "toolu_mf" }], usage: { input_tokens: 700, output_tokens: 70, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
      { kind: "error", status: 400, message: "messages: refused the second time" },
    ]);
    const second = await runTurn(ws, thread.id, `fail later ${m2}`, 2);
    expect(second.end.event).toBe("pipeline:error");
    const laterRunId = ws.events("pipeline:start")[1].data.runId;
    ws.close();

    const { runs, totals } = await metrics(asLocal, `?threadId=${thread.id}`);
    const failed = runs.find((r) => r.id === failedRunId);
    expect(failed).toMatchObject({ status: "invalid_request", inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 });
    expect(failed.status).not.toBe("completed");
    const later = runs.find((r) => r.id === laterRunId);
    expect(later).toMatchObject({ status: "invalid_request", inputTokens: 700, outputTokens: 70, costUsd: expectedCost(SONNET, { inputTokens: 700, outputTokens: 70, cacheWriteTokens: 0, cacheReadTokens: 0 }) });
    expect(totals).toMatchObject({ runs: 2, inputTokens: 700, outputTokens: 70 });

    const statuses = (await messagesOf(thread.id, "?kinds=status")).messages;
    expect(statuses.map((x) => [x.content, x.metadata.runId, x.metadata.code])).toEqual([
      ["pipeline_start", failedRunId, undefined],
      ["pipeline_error", failedRunId, "invalid_request"],
      ["pipeline_start", laterRunId, undefined],
      ["pipeline_error", laterRunId, "invalid_request"],
    ]);
    expect(statuses[3].metadata.usage).toEqual({ inputTokens: 700, outputTokens: 70, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("validates its query", async () => {
    for (const q of ["?since=-1", "?since=abc", "?limit=0", "?limit=5001", "?threadId="]) {
      const res = await asLocal(`/api/metrics${q}`);
      expect(res.status, q).toBe(400);
      expect((await res.json<any>()).error.code).toBe("invalid_request");
    }
  });
});
