// Branches, further: a delegated task outlives a change of its parent's branch (an edit, a switch);
// the long-thread rules (a window, whole tool exchanges) hold for a branch's view rebuilt from storage;
// D1's mirror of the messages carries the tree (parent_id) as the object keeps it.
import { describe, afterEach, expect, it } from "vitest";
import { api, createThread, json, marker, messagesOf, script, settle, Socket, until, upstreamRequests } from "../helpers";

afterEach(() => settle(30_000));

async function send(threadId: string, content: string) {
  const res = await api(`/api/threads/${threadId}/messages`, { body: { content } });
  expect(res.status).toBe(202);
  return (await res.json<any>()).message;
}
async function edit(threadId: string, messageId: string, content: string) {
  const res = await api(`/api/threads/${threadId}/messages/${messageId}/edit`, { body: { content } });
  expect(res.status).toBe(202);
  return (await res.json<any>()).message;
}
const setHead = (threadId: string, messageId: string) => api(`/api/threads/${threadId}/head`, { method: "PUT", body: { messageId } });
/** The text of each user turn in an upstream request. */
const userTexts = (body: any): string[] =>
  body.messages
    .filter((m: any) => m.role === "user")
    .map((m: any) => (typeof m.content === "string" ? m.content : m.content.filter((b: any) => b.type === "text").map((b: any) => b.text).join("")));

async function tasksOf(threadId: string) {
  return (await json<{ tasks: any[] }>(api(`/api/tasks?threadId=${threadId}`))).tasks;
}
async function finalTask(threadId: string) {
  const [task] = await until(() => tasksOf(threadId), (t) => t.length > 0 && ["completed", "failed", "cancelled"].includes(t[0].status), 20_000);
  return task;
}

/**
 * The child's scripted steps: its answer, slow to start (so the parent's branch can change meanwhile),
 * then the validator's verdict (its question carries the task's prompt, so the child's marker).
 */
async function scriptChild(c: string, answer: string) {
  await script(c, [
    { kind: "text", text: answer, firstByteDelayMs: 2_500 },
    { kind: "text", text: "ACCEPT" },
  ]);
}

describe("a delegated task when its parent's branch changes", () => {
  it("goes on after the user edits an earlier message of the parent mid-task: its result reaches the new branch", async () => {
    const [p, c, e] = [marker("p"), marker("c"), marker("e")];
    await script(p, [
      { kind: "text", text: "Hello." },
      { kind: "text", text: `On it.\n/delegate summarise the report ${c}` },
    ]);
    await scriptChild(c, "The summary.");
    // The edited branch holds neither p nor the delegation: its runs (the edit's, the reaction) are e's.
    await script(e, [
      { kind: "text", text: "Edited hello." },
      { kind: "text", text: "Noted the task's outcome." },
    ]);
    const parent = await createThread({ name: "parent" });
    const ws = await Socket.open(parent.id);
    const intro = await send(parent.id, `intro ${p}`);
    await ws.waitForRunEnd(1);
    const ask = await send(parent.id, `please delegate ${p}`);
    await ws.waitForRunEnd(2);
    expect(ws.events("pipeline:complete")[1].data.commandsHandled).toEqual(["delegate"]);

    // The child is running (its request is out, its answer not yet): the user edits the first message.
    const [running] = await until(() => tasksOf(parent.id), (t) => t[0]?.status === "running");
    await until(() => upstreamRequests(c), (r) => r.length === 1);
    const edited = await edit(parent.id, intro.id, `intro, edited ${e}`);
    expect((await tasksOf(parent.id))[0]).toMatchObject({ id: running.id, status: "running" });
    expect(edited).toMatchObject({ parentId: null, siblings: [intro.id, edited.id] });
    await ws.waitForRunEnd(3);

    const task = await finalTask(parent.id);
    expect(task).toMatchObject({ id: running.id, status: "completed", result: "The summary.", currentIteration: 1 });
    await ws.waitFor((f) => f.some((x) => x.event === "thread:notification"), 10_000, "the notification");
    expect(ws.events("thread:notification")[0].data).toMatchObject({ taskId: task.id, status: "completed", sourceThreadId: task.threadId });
    await ws.waitForRunEnd(4, 15_000);

    // The notification hangs off the branch that is current now, and the parent reacted on it.
    const branch = (await messagesOf(parent.id, "?kinds=text")).messages;
    expect(branch.map((m) => [m.role, m.content.split("\n")[0]])).toEqual([
      ["user", `intro, edited ${e}`],
      ["assistant", "Edited hello."],
      ["system", `[Task ${task.id} completed after 1 iteration(s), in thread ${task.threadId}]`],
      ["assistant", "Noted the task's outcome."],
    ]);
    const note = branch[2];
    expect(note.content).toContain("The summary.");
    expect(note.metadata).toMatchObject({ type: "cross-thread-notification", taskId: task.id, status: "completed" });
    expect(note.parentId).toBe(edited.id);
    expect(ws.events("pipeline:start").map((f) => f.data.messageId)).toEqual([intro.id, ask.id, edited.id, note.id]);
    const reaction = (await upstreamRequests(e)).pop()!.body;
    const said = userTexts(reaction);
    expect(said[0]).toBe(`intro, edited ${e}`);
    expect(said.at(-1)).toContain("The summary.");
    expect(JSON.stringify(reaction)).not.toContain("please delegate");
    const { thread } = await json<any>(api(`/api/threads/${parent.id}`));
    expect(thread.headId).toBe(note.id);

    // The branch that delegated is still there, whole.
    expect((await setHead(parent.id, ask.id)).status).toBe(200);
    const old = (await messagesOf(parent.id, "?kinds=text")).messages.map((m) => m.content);
    expect(old).toEqual([`intro ${p}`, "Hello.", `please delegate ${p}`, `On it.\n/delegate summarise the report ${c}`]);
    ws.close();
  });

  it("goes on after the user switches the parent to another branch between runs (PUT head)", async () => {
    const [p, c] = [marker("p"), marker("c")];
    await script(p, [
      { kind: "text", text: "Hello." },
      { kind: "text", text: "Hello again." },
      { kind: "text", text: `On it.\n/delegate summarise the report ${c}` },
      { kind: "text", text: "Noted the task's outcome." },
    ]);
    await scriptChild(c, "The summary, still.");
    const parent = await createThread({ name: "parent" });
    const ws = await Socket.open(parent.id);
    // Two branches: A (the first version of the first message) and B (its edit).
    const first = await send(parent.id, `first ${p}`);
    await ws.waitForRunEnd(1);
    const again = await edit(parent.id, first.id, `first, again ${p}`);
    await ws.waitForRunEnd(2);
    // Back on A, the delegation.
    expect((await setHead(parent.id, first.id)).status).toBe(200);
    const ask = await send(parent.id, `please delegate ${p}`);
    expect(ask.parentId).toBe(first.id);
    await ws.waitForRunEnd(3);
    expect(ws.events("pipeline:complete")[2].data.commandsHandled).toEqual(["delegate"]);

    // While the task runs and the parent is idle, the user goes over to B.
    const [running] = await until(() => tasksOf(parent.id), (t) => t[0]?.status === "running");
    await until(() => upstreamRequests(c), (r) => r.length === 1);
    const switched = await setHead(parent.id, again.id);
    expect(switched.status).toBe(200);
    expect((await switched.json<any>()).thread.headId).toBe(again.id);
    expect((await tasksOf(parent.id))[0].status).toBe("running");

    const task = await finalTask(parent.id);
    expect(task).toMatchObject({ id: running.id, status: "completed", result: "The summary, still." });
    await ws.waitForRunEnd(4, 15_000);
    const branch = (await messagesOf(parent.id, "?kinds=text")).messages;
    expect(branch.map((m) => m.role)).toEqual(["user", "assistant", "system", "assistant"]);
    expect(branch[0].id).toBe(again.id);
    expect(branch[2].parentId).toBe(again.id);
    expect(branch[2].content).toContain("The summary, still.");
    expect(branch[3].content).toBe("Noted the task's outcome.");
    // The reaction saw branch B and the news, not A's delegation.
    const reaction = (await upstreamRequests(p)).pop()!.body;
    expect(userTexts(reaction)[0]).toBe(`first, again ${p}`);
    expect(userTexts(reaction).at(-1)).toContain("The summary, still.");
    expect(JSON.stringify(reaction)).not.toContain("please delegate");
    ws.close();
  });
});

describe("the long-thread rules on a rebuilt branch", () => {
  it("sends only the branch's turns, trimmed to the window, tool exchanges whole", async () => {
    // claude-fake-small: a 25,000-token window (test/fake-upstream/models.mjs), 4,096 of it the answer's.
    const thread = await createThread({ model: "claude-fake-small" });
    const m = marker("branch-window");
    const big = (n: string, fill: string) => `${n} ${fill.repeat(32_000)} ${m}`;
    await script(m, [
      { kind: "text", text: "ok 1" },
      { kind: "tool_use", tools: [{ name: "time__current_time", input: {}, id: "toolu_branch_clock" }] },
      { kind: "text", text: "it is late" },
      { kind: "text", text: "ok 3" },
      { kind: "text", text: "ok 4" },
      { kind: "text", text: "ok 3, edited" },
    ]);
    const ws = await Socket.open(thread.id);
    const users = [];
    for (const [i, fill] of ["a", "b", "c", "d"].entries()) {
      users.push(await send(thread.id, big(String(i + 1), fill)));
      const end = (await ws.waitForRunEnd(i + 1, 20_000)).filter((f) => f.event === "pipeline:complete" || f.event === "pipeline:error").pop()!;
      expect(end.event, JSON.stringify(end.data)).toBe("pipeline:complete");
    }
    // The object holds the view of the branch that ends at exchange 4; the edit of 3 needs 1 and 2's.
    const edited = await edit(thread.id, users[2].id, big("3'", "e"));
    await ws.waitForRunEnd(5, 20_000);
    expect(ws.events("pipeline:complete")).toHaveLength(5);

    const requests = (await upstreamRequests(m)).map((r) => r.body);
    expect(requests).toHaveLength(6);
    const last = requests[5];
    const text = JSON.stringify(last);
    // Only the new branch: neither the exchange it replaced nor the one after it.
    expect(text).not.toContain("c".repeat(1_000));
    expect(text).not.toContain("d".repeat(1_000));
    expect(text).not.toContain("ok 3\"");
    expect(text).not.toContain("ok 4");
    // Trimmed: the whole branch (1, 2 and 3') is past the window; exchange 1 left, with a line saying so.
    expect(text).not.toContain("a".repeat(1_000));
    expect(last.messages[0].content[0].text).toBe("[Earlier messages of this conversation were left out to fit the model's context window.]");
    expect(userTexts(last)[0]).toContain(`2 ${"b".repeat(32_000)}`);
    expect(userTexts(last).at(-1)).toBe(big("3'", "e"));
    // The prompt's room: the window less the answer's (about 4 characters a token, as the fake counts).
    const roomChars = (25_000 - 4_096) * 4;
    expect(text.length).toBeLessThan(roomChars);
    expect(text.length + 32_000).toBeGreaterThan(roomChars); // exchange 1 would not have fitted
    // Exchange 2 came whole: its tool call and its result, in order, then the answer.
    expect(last.messages.slice(0, 4).map((x: any) => x.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(last.messages[1].content.find((b: any) => b.type === "tool_use")).toMatchObject({ id: "toolu_branch_clock", name: "time__current_time" });
    expect(last.messages[2].content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_branch_clock" });
    expect(last.messages[3].content.find((b: any) => b.type === "text").text).toBe("it is late");

    // Never a tool_use without its tool_result (nor a result without its call), in any request.
    for (const body of requests) {
      const blocks = body.messages.flatMap((x: any) => (Array.isArray(x.content) ? x.content : []));
      const uses = blocks.filter((b: any) => b.type === "tool_use").map((b: any) => b.id);
      const results = blocks.filter((b: any) => b.type === "tool_result").map((b: any) => b.tool_use_id);
      expect(results).toEqual(uses);
      expect(JSON.stringify(body).length).toBeLessThan(roomChars);
    }
    // The same trim held on the first branch: 4's request had 3 and not the tool exchange before it.
    expect(JSON.stringify(requests[4])).toContain("c".repeat(1_000));
    expect(JSON.stringify(requests[4])).not.toContain("toolu_branch_clock");

    const listed = (await messagesOf(thread.id, "?kinds=text")).messages;
    expect(listed.filter((x) => x.role === "user").map((x) => x.id)).toEqual([users[0].id, users[1].id, edited.id]);
    ws.close();
  });
});
