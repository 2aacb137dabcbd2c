import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createThread, marker, messagesOf, script, Socket, threadObject, upstreamRequests } from "../helpers";

async function run(ws: Socket, threadId: string, content: string, runs: number) {
  const res = await api(`/api/threads/${threadId}/messages`, { body: { content } });
  expect(res.status).toBe(202);
  await ws.waitForRunEnd(runs);
  return ws.events().filter((f) => f.event === "pipeline:complete" || f.event === "pipeline:error").pop()!;
}

const blockTypes = (msgs: any[]) =>
  msgs.map((msg) => `${msg.role}:${(msg.content as any[]).map((b) => b.type).join("+")}`);

describe("the resident conversation", () => {
  it("sends the earlier turns back on the next turn, thinking signatures intact, without a history section", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [
      { kind: "text", text: "First answer.", thinking: { text: "Pondering the first.", signature: "sig-FIRST-0123456789" } },
      { kind: "text", text: "Second answer." },
    ]);
    const ws = await Socket.open(thread.id);
    expect((await run(ws, thread.id, `first ${m}`, 1)).event).toBe("pipeline:complete");
    expect((await run(ws, thread.id, `second ${m}`, 2)).event).toBe("pipeline:complete");

    const [first, second] = await upstreamRequests(m);
    expect(first.body.messages).toHaveLength(1);
    expect(first.body.messages[0].content[0].text).toContain("first"); // a new thread: nothing to inject
    expect(blockTypes(second.body.messages)).toEqual(["user:text", "assistant:thinking+text", "user:text"]);
    expect(second.body.messages[1].content[0]).toEqual({
      type: "thinking",
      thinking: "Pondering the first.",
      signature: "sig-FIRST-0123456789",
    });
    expect(second.body.messages[2].content[0].text).toBe(`second ${m}`);
    expect(JSON.stringify(second.body)).not.toContain("# Conversation History");

    const { thread: stored } = await (await api(`/api/threads/${thread.id}`)).json<any>();
    expect(stored.sessionId).toMatch(/^sess_/);
    expect(stored.status).toBe("active");
    ws.close();
  });

  it("injects the stored history when the object lost the conversation, and starts a new session", async () => {
    const thread = await createThread();
    const m = marker();
    const ws = await Socket.open(thread.id);
    await run(ws, thread.id, `remember the word pineapple ${m}`, 1);
    const before = (await (await api(`/api/threads/${thread.id}`)).json<any>()).thread.sessionId;
    // The object's model view is lost (its turns gone, as after a restore from a copy that had only
    // the messages); the messages are still there.
    const stub = threadObject(thread.id);
    await runInDurableObject(stub, (_room, state) => state.storage.sql.exec("DELETE FROM turns"));
    ws.close();
    await abortAllDurableObjects();
    const reopened = await Socket.open(thread.id);
    await run(reopened, thread.id, `what was the word? ${m}`, 1);
    const [, second] = await upstreamRequests(m);
    expect(second.body.messages).toHaveLength(1);
    const prompt: string = second.body.messages[0].content[0].text;
    expect(prompt).toMatch(/^# Conversation History\n\n\[user\]: remember the word pineapple/);
    expect(prompt).toContain("[assistant]: Echo: remember the word pineapple");
    expect(prompt.endsWith(`what was the word? ${m}`)).toBe(true);
    const after = (await (await api(`/api/threads/${thread.id}`)).json<any>()).thread.sessionId;
    expect(after).toMatch(/^sess_/);
    expect(after).not.toBe(before);
    reopened.close();
  });
});

describe("the tool loop", () => {
  it("runs a plugin tool, sends its result back, and streams both as events", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [
      { kind: "tool_use", text: "Let me check.", thinking: { text: "Need the time.", signature: "sig-T" }, tools: [{ name: "time__current_time", input: {}, id: "toolu_time1" }] },
      { kind: "text", text: "It is now." },
    ]);
    const ws = await Socket.open(thread.id);
    expect((await run(ws, thread.id, `time? ${m}`, 1)).event).toBe("pipeline:complete");
    const [, second] = await upstreamRequests(m);
    expect(blockTypes(second.body.messages)).toEqual(["user:text", "assistant:thinking+text+tool_use", "user:tool_result"]);
    const result = second.body.messages[2].content[0];
    expect(result).toMatchObject({ type: "tool_result", tool_use_id: "toolu_time1" });
    expect(result.is_error).toBeUndefined();
    expect(result.content).toMatch(/\d{4}-\d{2}-\d{2}T/);

    const streams = ws.events("pipeline:stream").map((f) => f.data);
    expect(streams.find((d) => d.type === "tool_call")).toMatchObject({ toolUseId: "toolu_time1", toolName: "time__current_time", input: {} });
    expect(streams.find((d) => d.type === "tool_result")).toMatchObject({ toolUseId: "toolu_time1", isError: false });
    const assistant = ws.events("chat:message")[1].data.message;
    // Each tool turn's text is its own paragraph, in the stream and in the stored message alike.
    expect(assistant.content).toBe("Let me check.\n\nIt is now.");
    expect(streams.filter((d) => d.type === "text").map((d) => d.delta).join("")).toBe(assistant.content);
    ws.close();
  });

  it("turns an unknown tool into an is_error result instead of a crash", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [
      { kind: "tool_use", tools: [{ name: "nope__missing", input: { a: 1 }, id: "toolu_x" }] },
      { kind: "text", text: "Sorry, that tool does not exist." },
    ]);
    const ws = await Socket.open(thread.id);
    expect((await run(ws, thread.id, m, 1)).event).toBe("pipeline:complete");
    const [, second] = await upstreamRequests(m);
    expect(second.body.messages[2].content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_x",
      is_error: true,
      content: "Unknown tool: nope__missing",
    });
    ws.close();
  });

  it("stops at the tool turn limit with results for every call and a final answer without tools", async () => {
    const thread = await createThread();
    const m = marker();
    const loop = Array.from({ length: 9 }, (_, i) => ({ kind: "tool_use" as const, tools: [{ name: "time__current_time", input: {}, id: `toolu_${i}` }] }));
    await script(m, [...loop, { kind: "text", text: "Done looping." }]);
    const ws = await Socket.open(thread.id);
    expect((await run(ws, thread.id, m, 1)).event).toBe("pipeline:complete");
    const reqs = await upstreamRequests(m);
    expect(reqs).toHaveLength(10);
    const last = reqs[9].body;
    expect(last.tool_choice).toEqual({ type: "none" });
    const lastResult = last.messages[last.messages.length - 1].content[0];
    expect(lastResult).toMatchObject({ tool_use_id: "toolu_8", is_error: true });
    ws.close();
  });
});

describe("long threads", () => {
  it("keep answering past the token budget, dropping whole exchanges, never splitting a tool pair", async () => {
    // The fake's small model: a 25k-token window less 4k for the answer.
    const thread = await createThread({ model: "claude-fake-small" });
    const m = marker();
    const big = (label: string) => `${label} ${"x".repeat(30_000)} ${m}`; // ~7.5k tokens; the window holds about 20k
    await script(m, [
      { kind: "tool_use", tools: [{ name: "time__current_time", input: {}, id: "toolu_old" }] },
      { kind: "text", text: "short" },
      { kind: "text", text: "short" },
      { kind: "text", text: "short" },
      { kind: "text", text: "short" },
    ]);
    const ws = await Socket.open(thread.id);
    await run(ws, thread.id, big("one"), 1);
    await run(ws, thread.id, big("two"), 2);
    await run(ws, thread.id, big("three"), 3);
    expect((await run(ws, thread.id, big("four"), 4)).event).toBe("pipeline:complete");
    const reqs = await upstreamRequests(m);
    const lastMessages = reqs[reqs.length - 1].body.messages as any[];
    const texts = lastMessages.map((x) => JSON.stringify(x.content));
    expect(texts.some((t) => t.includes("one x"))).toBe(false); // the oldest exchange went first
    expect(texts.some((t) => t.includes("toolu_old"))).toBe(false); // with its tool pair, whole
    expect(lastMessages[0].role).toBe("user");
    expect(lastMessages[lastMessages.length - 1].content[0].text.startsWith("four")).toBe(true);
    // Dropped turns leave the model's view only: D1 and the UI keep them.
    const stored = (await messagesOf(thread.id, "?kinds=text")).messages;
    expect(stored.filter((x) => x.role === "user")).toHaveLength(4);
    ws.close();
  });

  it("trims and retries once when the API answers that the prompt is too long", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [
      { kind: "text", text: "a" },
      { kind: "error", status: 400, message: "prompt is too long: 210000 tokens > 200000 maximum" },
      { kind: "text", text: "fits now" },
    ]);
    const ws = await Socket.open(thread.id);
    await run(ws, thread.id, `${"y".repeat(24_000)} ${m}`, 1);
    expect((await run(ws, thread.id, `next ${m}`, 2)).event).toBe("pipeline:complete");
    const reqs = await upstreamRequests(m);
    expect(reqs).toHaveLength(3);
    expect(reqs[1].body.messages.length).toBeGreaterThan(reqs[2].body.messages.length);
    expect(ws.events("chat:message").pop()!.data.message.content).toBe("fits now");
    ws.close();
  });
});
