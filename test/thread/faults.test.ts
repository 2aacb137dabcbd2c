import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createThread, marker, messagesOf, script, Socket, streamedText, upstreamRequests } from "../helpers";

async function send(threadId: string, content: string) {
  const res = await api(`/api/threads/${threadId}/messages`, { body: { content } });
  expect(res.status).toBe(202);
  return (await res.json<{ message: any }>()).message;
}

/** After any failure the thread must take the next message and answer it. */
async function expectThreadWorks(ws: Socket, threadId: string, runsSoFar: number) {
  await send(threadId, "are you there?");
  await ws.waitForRunEnd(runsSoFar + 1);
  const last = ws.events().filter((f) => f.event === "pipeline:complete" || f.event === "pipeline:error").pop()!;
  expect(last.event).toBe("pipeline:complete");
  // The fake model echoes the whole prompt, which may start with injected history.
  expect(ws.events("chat:message").pop()!.data.message.content).toMatch(/^Echo: [\s\S]*are you there\?$/);
}

const errorOf = (ws: Socket) => ws.events("pipeline:error")[0]?.data;

describe("faults upstream", () => {
  it("retries 429 (honouring retry-after) and 529 before the first token, then answers", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [
      { kind: "error", status: 429, retryAfter: 0.2 },
      { kind: "error", status: 529 },
      { kind: "text", text: "Third time lucky." },
    ]);
    const ws = await Socket.open(thread.id);
    await send(thread.id, m);
    await ws.waitForRunEnd();
    expect(ws.events("pipeline:complete")).toHaveLength(1);
    const reqs = await upstreamRequests(m);
    expect(reqs).toHaveLength(3);
    expect(reqs[1].receivedAt - reqs[0].receivedAt).toBeGreaterThanOrEqual(190);
    expect(ws.events("chat:message")[1].data.message.content).toBe("Third time lucky.");
    ws.close();
  });

  it("gives up on a 429 that lasts, as rate_limited and retryable", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, Array.from({ length: 4 }, () => ({ kind: "error" as const, status: 429 })));
    const ws = await Socket.open(thread.id);
    await send(thread.id, m);
    await ws.waitForRunEnd();
    expect(errorOf(ws)).toMatchObject({ threadId: thread.id, code: "rate_limited", retryable: true });
    expect(await upstreamRequests(m)).toHaveLength(4);
    await expectThreadWorks(ws, thread.id, 1);
    ws.close();
  });

  it("fails a 400 at once as invalid_request, not retryable, and stays usable", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "error", status: 400, message: "messages: bad things" }]);
    const ws = await Socket.open(thread.id);
    await send(thread.id, m);
    await ws.waitForRunEnd();
    expect(errorOf(ws)).toMatchObject({ code: "invalid_request", retryable: false });
    expect(errorOf(ws).message).toContain("bad things");
    expect(await upstreamRequests(m)).toHaveLength(1);
    expect(ws.events("chat:message")).toHaveLength(1); // only the user's: no empty assistant message
    await expectThreadWorks(ws, thread.id, 1);
    ws.close();
  });

  it("ends a stream cut after tokens with upstream_error, keeping the partial text", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "cut", afterText: "Half an ans" }]);
    const ws = await Socket.open(thread.id);
    await send(thread.id, m);
    await ws.waitForRunEnd();
    expect(errorOf(ws)).toMatchObject({ code: "upstream_error", retryable: true });
    expect(await upstreamRequests(m)).toHaveLength(1); // tokens were shown: no silent retry
    const partial = ws.events("chat:message")[1].data.message;
    expect(partial).toMatchObject({ role: "assistant", content: "Half an ans", metadata: { error: "upstream_error" } });
    await expectThreadWorks(ws, thread.id, 1);
    ws.close();
  });

  it("retries a stream that fails before any token, and fails one with an error event after tokens", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [
      { kind: "stream_error", type: "overloaded_error" },
      { kind: "stream_error", afterText: "Some text", type: "api_error" },
    ]);
    const ws = await Socket.open(thread.id);
    await send(thread.id, m);
    await ws.waitForRunEnd();
    expect(await upstreamRequests(m)).toHaveLength(2);
    expect(errorOf(ws)).toMatchObject({ code: "upstream_error", retryable: true });
    expect(ws.events("chat:message")[1].data.message.content).toBe("Some text");
    await expectThreadWorks(ws, thread.id, 1);
    ws.close();
  });

  it("stops a run on POST stop: aborted, the streamed text stored with aborted: true", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "hang", afterText: "I was saying" }]);
    const ws = await Socket.open(thread.id);
    await send(thread.id, m);
    await ws.waitFor((f) => streamedText(f) === "I was saying", 10_000, "the streamed text");
    const res = await api(`/api/threads/${thread.id}/stop`, { method: "POST" });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ stopped: true });
    await ws.waitForRunEnd();
    expect(errorOf(ws)).toMatchObject({ code: "aborted", retryable: false });
    const stored = (await messagesOf(thread.id, "?kinds=text")).messages;
    expect(stored[1]).toMatchObject({ role: "assistant", content: "I was saying", metadata: { aborted: true } });
    expect(await (await api(`/api/threads/${thread.id}/stop`, { method: "POST" })).json()).toEqual({ stopped: false });
    // What the stopped request had cost (its message_start usage) is recorded, not zero.
    const { runs } = await (await api(`/api/metrics?threadId=${thread.id}`)).json<any>();
    expect(runs[0].status).toBe("aborted");
    expect(runs[0].inputTokens).toBeGreaterThan(0);
    expect(stored[1].metadata.usage.inputTokens).toBe(runs[0].inputTokens);
    await expectThreadWorks(ws, thread.id, 1);
    ws.close();
  });

  it("stops a run from the socket's stop frame", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "hang" }]);
    const ws = await Socket.open(thread.id);
    await send(thread.id, m);
    await ws.waitFor((f) => f.some((x) => x.event === "pipeline:step" && x.data.step === "invoking"));
    ws.send({ type: "stop" });
    await ws.waitForRunEnd();
    expect(errorOf(ws)).toMatchObject({ code: "aborted" });
    ws.close();
  });

  it("times out a model that never finishes (RUN_TIMEOUT_MS)", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "hang", afterText: "slow" }]);
    const ws = await Socket.open(thread.id);
    await send(thread.id, m);
    await ws.waitForRunEnd(1, 15_000);
    expect(errorOf(ws)).toMatchObject({ code: "timeout", retryable: true });
    await expectThreadWorks(ws, thread.id, 1);
    ws.close();
  });

  it("answers a run a restart cut off (no tool had run) again, once, keeping the cut text marked, and runs the queue on", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "hang", afterText: "Before the restart" }, { kind: "text", text: "The whole answer." }]);
    const ws = await Socket.open(thread.id);
    const first = await send(thread.id, m);
    await ws.waitFor((f) => streamedText(f) === "Before the restart");
    const queued = await send(thread.id, "queued behind it");
    await abortAllDurableObjects();

    // The new instance ends the run it did not start, answers its message again, then the queued one.
    const client = await Socket.open(thread.id, `?since=0`);
    await client.waitFor((f) => f.filter((x) => x.event === "pipeline:complete").length === 2, 15_000, "both answers");
    const error = client.events("pipeline:error")[0].data;
    expect(error).toMatchObject({ code: "interrupted", retryable: false, message: expect.stringContaining("answering again") });
    expect(client.events("pipeline:start").map((f) => f.data.messageId)).toEqual([first.id, first.id, queued.id]);
    const texts = (await messagesOf(thread.id, "?kinds=text")).messages.map((x) => [x.role, x.content, x.metadata?.error ?? null, x.metadata?.restarted ?? false]);
    expect(texts).toEqual([
      ["user", m, null, false],
      ["user", "queued behind it", null, false],
      ["assistant", "Before the restart", "interrupted", true],
      ["assistant", "The whole answer.", null, false],
      ["assistant", expect.stringMatching(/^Echo: [\s\S]*queued behind it$/), null, false],
    ]);
    // The second try was a fresh answer to the same question: the model saw no half answer.
    // (The third request with the marker in it is the queued message's, whose history holds it.)
    const requests = await upstreamRequests(m);
    expect(requests).toHaveLength(3);
    expect(JSON.stringify(requests[1].body.messages)).not.toContain("Before the restart");
    client.close();
  });

  it("does not repeat a run a restart cut off after a tool had run: it fails as interrupted and says why", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [
      { kind: "tool_use", tools: [{ name: "time__current_time", input: {} }] },
      { kind: "hang", afterText: "After the tool" },
    ]);
    const ws = await Socket.open(thread.id);
    await send(thread.id, m);
    await ws.waitFor((f) => streamedText(f).includes("After the tool"));
    await abortAllDurableObjects();
    const client = await Socket.open(thread.id, `?since=0`);
    await client.waitForRunEnd(1, 15_000);
    const error = client.events("pipeline:error")[0].data;
    expect(error).toMatchObject({ code: "interrupted", retryable: true, message: expect.stringContaining("a tool had run") });
    // A message sent now runs after anything still queued: its end shows the cut run did not run again.
    await send(thread.id, "and then");
    await client.waitForRunEnd(2, 15_000);
    expect(client.events("pipeline:start")).toHaveLength(2);
    expect(client.events("pipeline:complete")).toHaveLength(1);
    // Two requests for the cut run (the tool's turn, then the one after it), then the next message's,
    // whose history holds the marker too.
    const requests = await upstreamRequests(m);
    expect(requests.map((r) => JSON.stringify(r.body.messages.at(-1)).includes("and then"))).toEqual([false, false, true]);
    client.close();
  });
});

describe("the queue", () => {
  it("runs two messages one after the other, in order", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "text", text: "first answer, slowly", delayMs: 20 }]);
    const ws = await Socket.open(thread.id);
    const a = await send(thread.id, `first ${m}`);
    const b = await send(thread.id, "second");
    await ws.waitForRunEnd(2);
    const order = ws.events().filter((f) => /^pipeline:(start|complete)$/.test(f.event)).map((f) => `${f.event}:${f.data.messageId ?? ""}`);
    expect(order).toEqual([`pipeline:start:${a.id}`, "pipeline:complete:", `pipeline:start:${b.id}`, "pipeline:complete:"]);
    const texts = (await messagesOf(thread.id, "?kinds=text")).messages;
    expect(texts.filter((x) => x.role === "assistant").map((x) => x.content)).toEqual(["first answer, slowly", "Echo: second"]);
    ws.close();
  });

  it("stores and runs a message once for a repeated clientMessageId, even concurrently", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const body = { content: "once only", clientMessageId: "cm-1" };
    const [r1, r2] = await Promise.all([
      api(`/api/threads/${thread.id}/messages`, { body }),
      api(`/api/threads/${thread.id}/messages`, { body }),
    ]);
    expect([r1.status, r2.status].sort()).toEqual([200, 202]);
    const [m1, m2] = [(await r1.json<any>()).message, (await r2.json<any>()).message];
    expect(m1.id).toBe(m2.id);
    await ws.waitForRunEnd();
    const again = await api(`/api/chat`, { body: { threadId: thread.id, ...body } });
    expect(again.status).toBe(200);
    expect((await again.json<any>()).message.id).toBe(m1.id);
    // Sync point: a new message runs after anything the repeats could have queued (FIFO).
    const next = await send(thread.id, "after the repeats");
    await ws.waitForRunEnd(2);
    expect(ws.events("pipeline:start").map((f) => f.data.messageId)).toEqual([m1.id, next.id]);
    const users = (await messagesOf(thread.id)).messages.filter((x) => x.role === "user");
    expect(users.map((u) => u.content)).toEqual(["once only", "after the repeats"]);
    ws.close();
  });

  it("gives a client that reloads mid-stream the whole reply so far", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "text", text: "one two three four five six", delayMs: 60 }]);
    const ws = await Socket.open(thread.id);
    await send(thread.id, m);
    await ws.waitFor((f) => f.filter((x) => x.event === "pipeline:stream").length >= 2);
    const { lastSeq } = await messagesOf(thread.id);
    const reloaded = await Socket.open(thread.id, `?since=${lastSeq}`);
    await reloaded.waitForRunEnd();
    const text = reloaded.events("pipeline:stream").filter((f) => f.data.type === "text").map((f) => f.data.delta).join("");
    expect(text).toBe("one two three four five six");
    ws.close();
    reloaded.close();
  });

  it("answers 429 with Retry-After once a thread holds 20 waiting messages, and takes messages again later", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "hang" }]);
    const ws = await Socket.open(thread.id);
    await send(thread.id, m);
    for (let i = 1; i < 20; i++) await send(thread.id, `queued ${i}`);
    const refused = await api(`/api/threads/${thread.id}/messages`, { body: { content: "one too many", clientMessageId: "late-1" } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect((await refused.json<any>()).error).toMatchObject({ code: "rate_limited" });
    expect((await messagesOf(thread.id, "?kinds=text&limit=500")).messages.some((x) => x.content === "one too many")).toBe(false);
    await api(`/api/threads/${thread.id}/stop`, { method: "POST" });
    await ws.waitForRunEnd(20, 20_000);
    const again = await api(`/api/threads/${thread.id}/messages`, { body: { content: "one too many", clientMessageId: "late-1" } });
    expect(again.status).toBe(202);
    await ws.waitForRunEnd(21);
    ws.close();
  });
});
