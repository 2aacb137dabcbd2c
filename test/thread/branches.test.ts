// Branches: edit a user message, regenerate a reply, switch between versions. The model sees only
// the current branch, rebuilt from the stored turns (thinking signatures intact).
import { abortAllDurableObjects } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { api, checkpointed, createThread, json, marker, messagesOf, script, settle, Socket, streamedText, upstreamRequests } from "../helpers";
import { expectError } from "../http/util";

afterEach(() => settle());

async function send(threadId: string, content: string) {
  const res = await api(`/api/threads/${threadId}/messages`, { body: { content } });
  expect(res.status).toBe(202);
  return (await res.json<any>()).message;
}
const editOf = (threadId: string, messageId: string, body: Record<string, unknown>) =>
  api(`/api/threads/${threadId}/messages/${messageId}/edit`, { body });
const regenerate = (threadId: string, messageId: string, body: Record<string, unknown> = {}) =>
  api(`/api/threads/${threadId}/messages/${messageId}/regenerate`, { body });
const setHead = (threadId: string, messageId: string) => api(`/api/threads/${threadId}/head`, { method: "PUT", body: { messageId } });
/** The text of each user turn in an upstream request. */
const userTexts = (body: any) =>
  body.messages.filter((m: any) => m.role === "user").map((m: any) => m.content.filter((b: any) => b.type === "text").map((b: any) => b.text).join(""));

/** A thread of `n` exchanges, each answered with thinking (signed) and text. */
async function thread(n: number) {
  const t = await createThread();
  const m = marker("branch");
  await script(m, Array.from({ length: n + 6 }, (_, i) => ({ kind: "text" as const, text: `answer ${i + 1}`, thinking: { text: `thought ${i + 1}`, signature: `sig-${i + 1}` } })));
  const ws = await Socket.open(t.id);
  const users = [];
  for (let i = 1; i <= n; i++) {
    users.push(await send(t.id, `question ${i} ${m}`));
    await ws.waitForRunEnd(i);
  }
  return { t, m, ws, users };
}

describe("editing a user message", () => {
  it("in the middle of five exchanges: the model sees exactly the exchanges before it, and the list shows the new branch", async () => {
    const { t, m, ws, users } = await thread(5);
    const other = await Socket.open(t.id);
    const res = await editOf(t.id, users[2].id, { content: `question 3, better ${m}` });
    expect(res.status).toBe(202);
    const edited = (await res.json<any>()).message;
    expect(edited).toMatchObject({ role: "user", parentId: users[1].id, siblings: [users[2].id, edited.id] });
    await ws.waitForRunEnd(6);
    const requests = await upstreamRequests(m);
    expect(userTexts(requests[5].body)).toEqual([`question 1 ${m}`, `question 2 ${m}`, `question 3, better ${m}`]);
    // The earlier exchanges come back as stored: thinking with its signature, then the text.
    expect(requests[5].body.messages[1].content[0]).toEqual({ type: "thinking", thinking: "thought 1", signature: "sig-1" });

    const listed = (await messagesOf(t.id, "?kinds=text")).messages;
    expect(listed.map((x) => x.content)).toEqual([`question 1 ${m}`, "answer 1", `question 2 ${m}`, "answer 2", `question 3, better ${m}`, "answer 6"]);
    expect(listed[4].siblings).toEqual([users[2].id, edited.id]);
    const { thread: after } = await json<any>(api(`/api/threads/${t.id}`));
    expect(after.headId).toBe(edited.id);
    // Another tab follows: thread:updated with the new head and the new branch's messages.
    const updated = await other.waitFor((f) => f.some((x) => x.event === "thread:updated" && x.data.thread.headId === edited.id));
    const branch = updated.find((x) => x.event === "thread:updated" && x.data.thread.headId === edited.id)!.data.messages;
    expect(branch.map((x: any) => x.id)).toContain(edited.id);
    expect(branch.map((x: any) => x.id)).not.toContain(users[3].id);
    ws.close();
    other.close();
  });

  it("is idempotent by clientMessageId, queued behind a run in progress like a post, and refuses what is not a user message", async () => {
    const t = await createThread();
    const m = marker("edit-q");
    await script(m, [{ kind: "text", text: "first" }, { kind: "hang", afterText: "slow" }]);
    const ws = await Socket.open(t.id);
    const q1 = await send(t.id, `one ${m}`);
    await ws.waitForRunEnd(1);
    const q2 = await send(t.id, `two ${m}`);
    await ws.waitFor((f) => streamedText(f).endsWith("slow"));
    // While q2 runs: an edit of q1 waits its turn, and a retry of it is the same message.
    const body = { content: `one, edited ${m}`, clientMessageId: "edit-once" };
    const first = await editOf(t.id, q1.id, body);
    const again = await editOf(t.id, q1.id, body);
    expect([first.status, again.status]).toEqual([202, 200]);
    const edited = (await first.json<any>()).message;
    expect((await again.json<any>()).message.id).toBe(edited.id);
    await expectError(await setHead(t.id, q1.id), 409, "conflict");
    await api(`/api/threads/${t.id}/stop`, { method: "POST" });
    await ws.waitForRunEnd(3);
    expect(ws.events("pipeline:start").map((f) => f.data.messageId)).toEqual([q1.id, q2.id, edited.id]);

    const answer = (await messagesOf(t.id, "?kinds=text")).messages.find((x) => x.role === "assistant")!;
    await expectError(await editOf(t.id, answer.id, { content: "no" }), 400, "invalid_request");
    await expectError(await editOf(t.id, "msg_nope", { content: "no" }), 404, "not_found");
    await expectError(await setHead(t.id, "msg_nope"), 404, "not_found");
    await expectError(await setHead(t.id, answer.id), 400, "invalid_request");
    await expectError(await regenerate(t.id, "msg_nope"), 404, "not_found");
    await expectError(await editOf(t.id, q1.id, { content: "" }), 400, "invalid_request");
    ws.close();
  });

  it("survives a restart during the edit's run: the branch holds, the run ends once", async () => {
    const t = await createThread();
    const m = marker("edit-restart");
    await script(m, [{ kind: "text", text: "original" }, { kind: "hang", afterText: "cut off" }]);
    const ws = await Socket.open(t.id);
    const q = await send(t.id, `ask ${m}`);
    await ws.waitForRunEnd(1);
    const edited = (await (await editOf(t.id, q.id, { content: `ask again ${m}` })).json<any>()).message;
    await ws.waitFor((f) => streamedText(f).endsWith("cut off"));
    await checkpointed();
    await abortAllDurableObjects();
    const client = await Socket.open(t.id, "?since=0");
    await client.waitForRunEnd(2, 15_000);
    expect(client.events("pipeline:error").map((f) => f.data.code)).toEqual(["interrupted"]);
    const listed = (await messagesOf(t.id, "?kinds=text")).messages;
    expect(listed.map((x) => [x.content, x.metadata.error ?? null])).toEqual([
      [`ask again ${m}`, null],
      ["cut off", "interrupted"],
    ]);
    expect(listed[0].id).toBe(edited.id);
    client.close();
  });
});

describe("regenerating and switching", () => {
  it("regenerates the last reply with the same request, and switches back with PUT head, signatures intact", async () => {
    const { t, m, ws, users } = await thread(2);
    const answers = (await messagesOf(t.id, "?kinds=text")).messages.filter((x) => x.role === "assistant");
    const res = await regenerate(t.id, answers[1].id);
    expect(res.status).toBe(202);
    const again = (await res.json<any>()).message;
    expect(again).toMatchObject({ content: users[1].content, parentId: users[0].id, metadata: { regenerates: answers[1].id } });
    await ws.waitForRunEnd(3);
    const requests = await upstreamRequests(m);
    expect(requests[2].body.messages).toEqual(requests[1].body.messages);

    // Back to the first version of the second question; the next message continues that branch.
    const switched = await setHead(t.id, users[1].id);
    expect(switched.status).toBe(200);
    expect((await switched.json<any>()).thread.headId).toBe(users[1].id);
    const next = await send(t.id, `question 3 ${m}`);
    expect(next.parentId).toBe(users[1].id);
    await ws.waitForRunEnd(4);
    const last = (await upstreamRequests(m))[3].body.messages;
    expect(userTexts({ messages: last })).toEqual([`question 1 ${m}`, `question 2 ${m}`, `question 3 ${m}`]);
    expect(last[3].content[0]).toEqual({ type: "thinking", thinking: "thought 2", signature: "sig-2" });
    const texts = (await messagesOf(t.id, "?kinds=text")).messages.map((x) => x.content);
    expect(texts).toEqual([`question 1 ${m}`, "answer 1", `question 2 ${m}`, "answer 2", `question 3 ${m}`, "answer 4"]);
    ws.close();
  });

  it("PUT head follows the newest child at every fork", async () => {
    const { t, m, ws, users } = await thread(3);
    const edited = (await (await editOf(t.id, users[1].id, { content: `question 2, take two ${m}` })).json<any>()).message;
    await ws.waitForRunEnd(4);
    const after = await send(t.id, `question 3 on the new branch ${m}`);
    await ws.waitForRunEnd(5);
    // From the first question, the newest child is the edit, and below it the newest message.
    const res = await setHead(t.id, users[0].id);
    expect((await res.json<any>()).thread.headId).toBe(after.id);
    expect(after.parentId).toBe(edited.id);
    // The older branch is still there, whole.
    await setHead(t.id, users[2].id);
    const old = (await messagesOf(t.id, "?kinds=text")).messages.filter((x) => x.role === "user").map((x) => x.id);
    expect(old).toEqual(users.map((u) => u.id));
    ws.close();
  });
});
