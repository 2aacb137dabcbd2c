import { describe, expect, it } from "vitest";
import { api, createThread, marker, messagesOf, script, Socket, upstreamRequests } from "../helpers";

const runEvents = (s: Socket) => s.events().map((f) => (f.event === "pipeline:step" ? `step:${f.data.step}` : f.event));

describe("a run's events", () => {
  it("arrive in PROTOCOL.md's order with their payloads, numbered by seq", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "text", text: "Hello from the fake model.", thinking: { text: "Let me think.", signature: "sig-abc" }, usage: { input_tokens: 42, output_tokens: 7 } }]);
    const ws = await Socket.open(thread.id);
    const res = await api(`/api/threads/${thread.id}/messages`, { body: { content: `hi ${m}` } });
    expect(res.status).toBe(202);
    const { message: user } = await res.json<{ message: any }>();
    expect(user).toMatchObject({ threadId: thread.id, role: "user", kind: "text", content: `hi ${m}` });
    await ws.waitForRunEnd();

    const names = runEvents(ws);
    const collapsed = names.filter((n, i) => n !== "pipeline:stream" || names[i - 1] !== "pipeline:stream");
    expect(collapsed).toEqual([
      "chat:message",
      "pipeline:start",
      "step:onMessage",
      "step:onBeforeInvoke",
      "step:invoking",
      "pipeline:stream",
      "step:onAfterInvoke",
      "chat:message",
      "thread:updated", // the first run makes the thread active
      "pipeline:complete",
    ]);
    const seqs = ws.events().map((f) => f.seq!);
    seqs.forEach((s, i) => i > 0 && expect(s).toBe(seqs[i - 1] + 1));

    const ready = ws.frames[0];
    expect(ready.event).toBe("ready");
    expect(ready.seq).toBeUndefined();

    const start = ws.events("pipeline:start")[0].data;
    expect(start).toEqual({ threadId: thread.id, runId: expect.stringMatching(/^run_/), messageId: user.id });
    const invoking = ws.events("pipeline:step").find((f) => f.data.step === "invoking")!.data;
    expect(invoking.detail).toBe(thread.model);
    const streams = ws.events("pipeline:stream").map((f) => f.data);
    expect(streams.every((d) => d.runId === start.runId && d.threadId === thread.id)).toBe(true);
    expect(streams.filter((d) => d.type === "thinking").map((d) => d.delta).join("")).toBe("Let me think.");
    expect(streams.filter((d) => d.type === "text").map((d) => d.delta).join("")).toBe("Hello from the fake model.");
    const after = ws.events("pipeline:step").find((f) => f.data.step === "onAfterInvoke")!.data;
    expect(after.usage).toMatchObject({ inputTokens: 42, outputTokens: 7 });
    expect(after.detail).toMatch(/^49 tokens, \d+ms$/);
    const assistant = ws.events("chat:message")[1].data.message;
    expect(assistant).toMatchObject({ role: "assistant", kind: "text", content: "Hello from the fake model.", model: thread.model });
    expect(assistant.metadata).toMatchObject({ runId: start.runId, usage: { inputTokens: 42, outputTokens: 7 } });
    expect(ws.events("thread:updated")[0].data).toMatchObject({ threadId: thread.id, thread: { id: thread.id, status: "active" } });
    const complete = ws.events("pipeline:complete")[0].data;
    expect(complete).toMatchObject({ threadId: thread.id, runId: start.runId, commandsHandled: [] });
    expect(complete.durationMs).toBeGreaterThanOrEqual(0);

    const stored = await messagesOf(thread.id, "?kinds=text");
    expect(stored.messages.map((x) => [x.role, x.content])).toEqual([
      ["user", `hi ${m}`],
      ["assistant", "Hello from the fake model."],
    ]);
    expect(stored.lastSeq).toBe(seqs[seqs.length - 1]);
    ws.close();
  });

  it("reach every socket of the thread, identically", async () => {
    const thread = await createThread();
    const [a, b] = await Promise.all([Socket.open(thread.id), Socket.open(thread.id)]);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: "to both" } });
    await Promise.all([a.waitForRunEnd(), b.waitForRunEnd()]);
    expect(a.events()).toEqual(b.events());
    expect(a.events("chat:message")[1].data.message.content).toBe("Echo: to both");
    a.close();
    b.close();
  });

  it("coalesce a fast token stream into few frames, the first one at once", async () => {
    const thread = await createThread();
    const m = marker();
    const words = Array.from({ length: 300 }, (_, i) => `w${i} `);
    await script(m, [{ kind: "text", text: words.join(""), chunks: words, delayMs: 1 }]);
    const ws = await Socket.open(thread.id);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: m } });
    await ws.waitForRunEnd();
    const deltas = ws.events("pipeline:stream").filter((f) => f.data.type === "text");
    expect(deltas.map((f) => f.data.delta).join("")).toBe(words.join(""));
    expect(deltas[0].data.delta).toBe("w0 ");
    expect(deltas.length).toBeLessThan(words.length / 3);
    ws.close();
  });

  it("replay what a client missed with ?since=, exactly once, then go live", async () => {
    const thread = await createThread();
    const first = await Socket.open(thread.id);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: "one" } });
    await first.waitForRunEnd();
    const all = first.events();
    const cut = all[3].seq!;
    const late = await Socket.open(thread.id, `?since=${cut}`);
    await late.waitFor((f) => f.filter((x) => x.seq !== undefined).length >= all.length - 4);
    expect(late.frames[0].event).toBe("ready");
    expect(late.frames[0].data.lastSeq).toBe(all[all.length - 1].seq);
    expect(late.events().map((f) => f.seq)).toEqual(all.slice(3 + 1).map((f) => f.seq));

    await api(`/api/threads/${thread.id}/messages`, { body: { content: "two" } });
    await late.waitForRunEnd(2);
    const seqs = late.events().map((f) => f.seq!);
    expect(new Set(seqs).size).toBe(seqs.length);
    seqs.forEach((s, i) => i > 0 && expect(s).toBe(seqs[i - 1] + 1));
    const fresh = await Socket.open(thread.id);
    await fresh.waitFor((f) => f.length >= 1);
    // Sync point: a live event; without `since` it is the first numbered frame the socket gets.
    await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { name: "live only" } });
    await fresh.waitFor((f) => f.some((x) => x.event === "thread:updated"));
    expect(fresh.events().map((f) => f.event)).toEqual(["thread:updated"]);
    first.close();
    late.close();
    fresh.close();
  });

  it("answer ping with pong and garbage with an error frame, keeping the socket open", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    ws.send({ type: "ping" });
    ws.send("not json");
    ws.send({ type: "dance" });
    await ws.waitFor((f) => f.length >= 4);
    expect(ws.frames[0].event).toBe("ready");
    // Replies to one socket only: no seq. (Their order among themselves is not part of the protocol.)
    const replies = ws.frames.slice(1).map((f) => `${f.event}:${f.data.code ?? ""}:${f.seq ?? "-"}`);
    expect(replies.sort(), JSON.stringify(ws.frames)).toEqual(["error:invalid_frame:-", "error:invalid_frame:-", "pong::-"]);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: "still here" } });
    await ws.waitForRunEnd();
    expect(ws.closed).toBe(false);
    ws.close();
  });

  it("sends the thread's model and the cached context to the Messages API", async () => {
    const thread = await createThread({ model: "claude-haiku-4-5" });
    const m = marker();
    await api("/api/context/memory.md", { method: "PUT", body: { content: "The user likes tea." } });
    const ws = await Socket.open(thread.id);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: m } });
    await ws.waitForRunEnd();
    const [req] = await upstreamRequests(m);
    expect(req.body.model).toBe("claude-haiku-4-5");
    expect(req.body.stream).toBe(true);
    expect(req.headers.authorization).toBe("Bearer test-key");
    expect(req.headers["anthropic-version"]).toBeTruthy();
    expect(req.body.system).toEqual([
      { type: "text", text: expect.stringContaining("# Context\n\n## memory.md\n\nThe user likes tea."), cache_control: { type: "ephemeral" } },
      { type: "text", text: `This thread is named "${thread.name}".` },
    ]);
    expect(req.body.tools.map((t: any) => t.name)).toContain("time__current_time");
    await api("/api/context/memory.md", { method: "DELETE" });
    ws.close();
  });
});
