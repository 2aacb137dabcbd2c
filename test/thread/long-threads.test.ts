// Threads of any length: the model catalog, requests built from it, a window that converges on the
// API's real limit, server-side compaction, cache breakpoints, context files within a budget.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { ThreadRoom } from "../../worker/thread/room";
import { parseTooLong } from "../../worker/thread/run/context-window";
import { api, createThread, env, json, marker, messagesOf, script, settle, Socket, threadObject, upstream, upstreamRequests } from "../helpers";
import { callApp, expectError } from "../http/util";

/** The fake's limits, for requests that hold `match` only (the other test files run meanwhile). */
const fakeConfig = upstream.config;

afterEach(async () => {
  await fakeConfig({});
  await settle(30_000);
});

async function talk(threadId: string, ws: Socket, content: string, runs: number) {
  expect((await api(`/api/threads/${threadId}/messages`, { body: { content } })).status).toBe(202);
  return (await ws.waitForRunEnd(runs, 20_000)).filter((f) => f.event === "pipeline:complete" || f.event === "pipeline:error").pop()!;
}

describe("the model catalog", () => {
  it("serves the Models API's models as GET /api/models, and refuses a model not among them", async () => {
    const { models, default: fallback } = await json<any>(api("/api/models"));
    expect(fallback).toBe(env.DEFAULT_MODEL);
    expect(models.find((m: any) => m.id === "claude-haiku-4-5")).toEqual({
      id: "claude-haiku-4-5",
      displayName: "Claude Haiku 4.5",
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
      thinking: ["enabled"],
      compaction: false,
      codeExecution: "code_execution_20250825",
    });
    expect(models.find((m: any) => m.id === "claude-sonnet-4-6")).toMatchObject({ thinking: ["adaptive", "enabled"], compaction: true, codeExecution: "code_execution_20260521" });
    await expectError(await api("/api/threads", { body: { model: "claude-opus-4-1" } }), 400, "invalid_request");
    await expectError(await api("/api/threads", { body: { model: "<b>x</b>;DROP" } }), 400, "invalid_request");
    // MODELS narrows what the deployment offers.
    const narrow = { ...env, MODELS: "claude-sonnet-4-6,claude-haiku-4-5" };
    expect((await (await callApp(narrow, "/api/models")).json<any>()).models.map((m: any) => m.id)).toEqual(["claude-sonnet-4-6", "claude-haiku-4-5"]);
    await expectError(await callApp(narrow, "/api/threads", { body: { model: "claude-opus-4-5" } }), 400, "invalid_request");
  });

  it("builds each request from its model: thinking as it takes it, max_tokens within its limit", async () => {
    const m = marker("catalog");
    const cases = [
      ["claude-sonnet-4-6", { type: "adaptive", display: "summarized" }],
      ["claude-haiku-4-5", { type: "enabled", budget_tokens: 4096 }],
      ["claude-fake-plain", undefined],
    ] as const;
    for (const [model] of cases) {
      const thread = await createThread({ model });
      const ws = await Socket.open(thread.id);
      expect((await talk(thread.id, ws, `${model} ${m}`, 1)).event).toBe("pipeline:complete");
      ws.close();
    }
    const requests = await upstreamRequests(m);
    expect(requests.map((r) => r.body.thinking)).toEqual(cases.map(([, thinking]) => thinking));
    expect(requests.map((r) => r.body.max_tokens)).toEqual([8192, 8192, 4096]);
  });
});

describe("a window that converges", () => {
  it("answers 30 messages of 20,000 characters under a 100,000-character limit, at most one refusal a run", async () => {
    const m = marker("limit");
    await fakeConfig({ contextLimitChars: 100_000, match: m });
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    for (let i = 1; i <= 30; i++) {
      const end = await talk(thread.id, ws, `${i} ${"z".repeat(20_000)} ${m}`, i);
      expect(end.event, JSON.stringify(end.data)).toBe("pipeline:complete");
    }
    const requests = await upstreamRequests(m);
    // A refused request is one the next run's first request did not follow: count them per run.
    const refused = requests.length - 30;
    expect(refused).toBeLessThanOrEqual(30);
    expect(refused).toBeLessThanOrEqual(2); // learned once, then every run fits at its first try
    const last = requests[requests.length - 1].body;
    expect(JSON.stringify(last).length).toBeLessThanOrEqual(100_000);
    const newest = last.messages[last.messages.length - 1].content;
    expect(newest[newest.length - 1].text.startsWith(`30 ${"z".repeat(20_000)}`)).toBe(true);
    expect((await messagesOf(thread.id, "?kinds=text&limit=500")).messages).toHaveLength(60);
    ws.close();
  });

  it("reads the API's limit out of its answer", () => {
    expect(parseTooLong("The model API refused the request: prompt is too long: 25125 tokens > 25000 maximum")).toEqual({ tokens: 25125, max: 25000 });
    expect(parseTooLong("something else")).toBeNull();
  });

  it("fails a message that alone does not fit, in words a person understands", async () => {
    const m = marker("alone");
    await fakeConfig({ contextLimitChars: 10_000, match: m });
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const end = await talk(thread.id, ws, `${"w".repeat(20_000)} ${m}`, 1);
    expect(end.event).toBe("pipeline:error");
    expect(end.data.code).toBe("invalid_request");
    expect(end.data.message).toMatch(/^This message is too long for Claude Sonnet 4\.6: about [\d,]+ tokens, and it takes at most 2,500\. Shorten it, or send it in parts\.$/);
    ws.close();
  });

  it("keeps tool exchanges whole and thinking untouched when it trims", async () => {
    const thread = await createThread({ model: "claude-fake-small" });
    const m = marker("whole");
    const thought = { text: "let me use the clock", signature: "sig-whole" };
    await script(m, [
      { kind: "tool_use", thinking: thought, tools: [{ name: "time__current_time", input: {}, id: "toolu_keep" }] },
      { kind: "text", text: "it is late", thinking: { text: "answering", signature: "sig-answer" } },
      ...Array.from({ length: 6 }, () => ({ kind: "text" as const, text: "ok" })),
    ]);
    const ws = await Socket.open(thread.id);
    let runs = 0;
    for (const size of [2_000, 30_000, 30_000, 30_000]) await talk(thread.id, ws, `${"q".repeat(size)} ${m}`, ++runs);
    for (const r of await upstreamRequests(m)) {
      const blocks = r.body.messages.flatMap((x: any) => (Array.isArray(x.content) ? x.content : []));
      const uses = new Set(blocks.filter((b: any) => b.type === "tool_use").map((b: any) => b.id));
      for (const b of blocks.filter((x: any) => x.type === "tool_result")) expect(uses.has(b.tool_use_id)).toBe(true);
      for (const b of blocks.filter((x: any) => x.type === "thinking")) expect([thought.signature, "sig-answer"]).toContain(b.signature);
    }
    const last = (await upstreamRequests(m)).pop()!.body;
    expect(JSON.stringify(last)).not.toContain("toolu_keep"); // the first exchange left, tool pair and all
    expect(last.messages[0].content[0].text).toBe("[Earlier messages of this conversation were left out to fit the model's context window.]");
    ws.close();
  });
});

describe("caching", () => {
  it("puts breakpoints on the system prompt and on the history's last turn, no more than four", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const m = marker("cache");
    for (let i = 1; i <= 3; i++) await talk(thread.id, ws, `turn ${i} ${m}`, i);
    const [, second, third] = (await upstreamRequests(m)).map((r) => r.body);
    const marks = (body: any) => JSON.stringify(body).split('"cache_control"').length - 1;
    expect(third.system[0].cache_control).toEqual({ type: "ephemeral" });
    expect(third.messages[3].content.at(-1).cache_control).toEqual({ type: "ephemeral" }); // the last answer
    expect(marks(third)).toBe(2);
    expect(marks(second)).toBe(2);
    // What the second request sent is, up to the third's moving breakpoint, what the third sends
    // (the API matches cached prefixes by content: where a breakpoint sits is not part of it).
    const unmarked = (x: unknown) => JSON.parse(JSON.stringify(x, (k, v) => (k === "cache_control" ? undefined : v)));
    expect(unmarked(third.messages.slice(0, 3))).toEqual(unmarked(second.messages));
    ws.close();
  });
});

describe("compaction", () => {
  it("keeps the compaction block as returned, sends it back first, and drops what came before it from view and storage", async () => {
    const m = marker("compact");
    await fakeConfig({ compactionTriggerChars: 25_000, match: m });
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    for (let i = 1; i <= 4; i++) {
      const end = await talk(thread.id, ws, `${i} ${"c".repeat(9_000)} ${m}`, i);
      expect(end.event, JSON.stringify(end.data)).toBe("pipeline:complete");
    }
    const requests = (await upstreamRequests(m)).map((r) => r.body);
    expect(requests.every((b) => b.context_management?.edits?.[0]?.type === "compact_20260112")).toBe(true);
    const compacted = requests.findIndex((b) => JSON.stringify(b).length > 25_000);
    expect(compacted).toBeGreaterThan(0);
    // The run after compaction starts its messages with the block, and nothing before it.
    const after = requests[compacted + 1];
    expect(after.messages[0].role).toBe("assistant");
    expect(after.messages[0].content[0]).toMatchObject({ type: "compaction", content: expect.stringMatching(/^Summary of /) });
    expect(JSON.stringify(after.messages)).not.toContain(`1 ${"c".repeat(100)}`);
    expect(ws.events("pipeline:step").some((f) => f.data.step === "compacted")).toBe(true);
    // Every message stays in the thread; the turns before the compaction point do not.
    expect((await messagesOf(thread.id, "?kinds=text")).messages).toHaveLength(8);
    const turns = await runInDurableObject(threadObject(thread.id), (_r: ThreadRoom, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT count(DISTINCT exchange) AS n FROM turns").one().n,
    );
    expect(turns).toBeLessThan(4);
    // Compaction's own tokens count in the run's usage.
    const { runs } = await json<any>(api(`/api/metrics?threadId=${thread.id}`));
    expect(Math.max(...runs.map((r: any) => r.outputTokens))).toBeGreaterThanOrEqual(200);
    ws.close();
  });

  it("falls back to the local path when the server refuses the beta, without failing the run", async () => {
    const m = marker("refused");
    await fakeConfig({ refuseCompaction: true, match: m });
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    expect((await talk(thread.id, ws, `first ${m}`, 1)).event).toBe("pipeline:complete");
    expect((await talk(thread.id, ws, `second ${m}`, 2)).event).toBe("pipeline:complete");
    const requests = (await upstreamRequests(m)).map((r) => r.body);
    // Refused once, sent again without it at once, and not asked again.
    expect(requests.map((b) => Boolean(b.context_management))).toEqual([true, false, false]);
    ws.close();
  });
});

describe("the object's storage", () => {
  it("grows linearly with the messages, with no per-run copies", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const stub = threadObject(thread.id);
    const size = () => runInDurableObject(stub, (_r: ThreadRoom, state) => state.storage.sql.databaseSize);
    // A question of 500 characters, an answer (its echo) of about the same, thinking, activity rows.
    const question = (i: number) => `${i} ${"s".repeat(500)}`;
    const sizes: number[] = [];
    let runs = 0;
    for (const stop of [10, 20, 30]) {
      while (runs < stop) await talk(thread.id, ws, question(runs + 1), ++runs);
      sizes.push(await size());
    }
    const [first, second] = [sizes[1] - sizes[0], sizes[2] - sizes[1]];
    console.log(`storage: ${Math.round(first / 10)} and ${Math.round(second / 10)} bytes per exchange (10 runs each)`);
    expect(second).toBeLessThanOrEqual(first * 1.5);
    expect(second).toBeGreaterThan(0);
    ws.close();
  });
});
