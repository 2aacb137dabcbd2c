// /api/threads/:id/messages (and /api/chat): reading a thread's messages after real runs (paging,
// kinds, lastSeq), and posting them (validation, idempotency by clientMessageId, archived threads).
import { beforeAll, describe, expect, it } from "vitest";
import { api, createThread, json, marker, messagesOf, roomRows, script, Socket, streamedText } from "../helpers";
import { expectError, expectInvalid } from "./util";

const MESSAGE_KEYS = ["clientMessageId", "content", "createdAt", "id", "kind", "metadata", "model", "parentId", "role", "source", "threadId"];
/** User messages as listed also carry `siblings` (the branch switcher's versions). */
const USER_MESSAGE_KEYS = [...MESSAGE_KEYS, "siblings"].sort();

function post(threadId: string, body: unknown) {
  return api(`/api/threads/${threadId}/messages`, { body });
}

/** Posts and expects 202; answers the stored message. */
async function accepted(threadId: string, body: Record<string, unknown>) {
  const res = await post(threadId, body);
  expect(res.status, await res.clone().text()).toBe(202);
  return (await res.json<any>()).message;
}

/** createdAt never goes backwards: the page is oldest first. */
function expectOldestFirst(messages: any[]) {
  for (let i = 1; i < messages.length; i++) expect(messages[i].createdAt).toBeGreaterThanOrEqual(messages[i - 1].createdAt);
}

const userMessagesWithClientId = (threadId: string, cid: string) =>
  roomRows(threadId, "messages", "role = 'user' AND client_message_id = ?", cid);

/** Follows up with one more message and waits for its run: any duplicate run would have come first. */
async function runsAfterFollowUp(threadId: string, ws: Socket, runsSoFar: number) {
  const followUp = await accepted(threadId, { content: "follow-up" });
  await ws.waitForRunEnd(runsSoFar + 1);
  return { followUp, starts: ws.events("pipeline:start").map((f) => f.data.messageId as string) };
}

describe("GET /api/threads/:id/messages after a run", () => {
  let thread: any;
  let ws: Socket;
  let user: any;
  let all: any[];
  let lastSeq: number;
  const answer = "Hello! Here is my considered answer.";
  const thinking = "The user greets me; I should greet back.";

  beforeAll(async () => {
    const m = marker("msgs");
    await script(m, [{ kind: "text", text: answer, thinking: { text: thinking } }]);
    thread = await createThread({ name: "history" });
    ws = await Socket.open(thread.id);
    user = await accepted(thread.id, { content: `hello ${m}` });
    await ws.waitForRunEnd();
    expect(ws.events("pipeline:complete")).toHaveLength(1);
    const res = await api(`/api/threads/${thread.id}/messages`);
    expect(res.status).toBe(200);
    const body = await res.json<any>();
    expect(Object.keys(body).sort()).toEqual(["lastSeq", "messages"]);
    all = body.messages;
    lastSeq = body.lastSeq;
    ws.close();
  });

  it("answers every message of the run, oldest first, in the Message shape", () => {
    expect(all.length).toBeGreaterThanOrEqual(9);
    expectOldestFirst(all);
    for (const m of all) {
      expect(Object.keys(m).sort()).toEqual(m.role === "user" ? USER_MESSAGE_KEYS : MESSAGE_KEYS);
      expect(m.threadId).toBe(thread.id);
      expect(m.id).toMatch(/^msg_/);
      expect(["user", "assistant", "system"]).toContain(m.role);
      expect(typeof m.metadata).toBe("object");
    }
    expect(new Set(all.map((m) => m.id)).size).toBe(all.length);
  });

  it("holds the user's message as posted and the assistant's answer as streamed", () => {
    expect(all.find((m) => m.id === user.id)).toEqual(user);
    const texts = all.filter((m) => m.kind === "text");
    expect(texts.map((m) => m.role)).toEqual(["user", "assistant"]);
    const assistant = texts[1];
    expect(assistant).toMatchObject({ role: "assistant", content: answer, model: thread.model, source: "assistant" });
    const runId = ws.events("pipeline:complete")[0].data.runId;
    expect(assistant.metadata).toMatchObject({ runId, stopReason: "end_turn", durationMs: expect.any(Number) });
    expect(Object.keys(assistant.metadata.usage).sort()).toEqual(["cacheReadTokens", "cacheWriteTokens", "inputTokens", "outputTokens"]);
    expect(assistant.createdAt).toBeGreaterThan(user.createdAt);
  });

  it("holds the activity rows: status, steps and thinking", () => {
    const thinkingRows = all.filter((m) => m.kind === "thinking");
    expect(thinkingRows).toHaveLength(1);
    expect(thinkingRows[0]).toMatchObject({ role: "assistant", content: thinking });
    expect(all.filter((m) => m.kind === "status").map((m) => m.content)).toEqual(["pipeline_start", "pipeline_complete"]);
    expect(all.filter((m) => m.kind === "pipeline_step").map((m) => m.content)).toEqual([
      "onMessage",
      "onBeforeInvoke",
      "invoking",
      "onAfterInvoke",
    ]);
  });

  it("answers lastSeq as a number: the seq of the thread's last event", () => {
    expect(typeof lastSeq).toBe("number");
    expect(Number.isInteger(lastSeq)).toBe(true);
    expect(lastSeq).toBe(Math.max(...ws.events().map((f) => f.seq!)));
  });

  it("limit answers the newest messages, still oldest first", async () => {
    const page = await json(api(`/api/threads/${thread.id}/messages?limit=2`));
    expect(page.messages).toEqual(all.slice(-2));
    expect((await json(api(`/api/threads/${thread.id}/messages?limit=1`))).messages).toEqual(all.slice(-1));
    expect((await json(api(`/api/threads/${thread.id}/messages?limit=500`))).messages).toEqual(all);
  });

  it.each(["0", "-3", "501", "ten", "2.5"])("refuses limit=%s → 400", async (limit) => {
    await expectInvalid(await api(`/api/threads/${thread.id}/messages?limit=${limit}`), "limit");
  });

  it("before=<id> answers the messages just before that one", async () => {
    const anchor = 5;
    const page = await json(api(`/api/threads/${thread.id}/messages?before=${all[anchor].id}&limit=3`));
    expect(page.messages).toEqual(all.slice(anchor - 3, anchor));
    expect((await json(api(`/api/threads/${thread.id}/messages?before=${all[1].id}`))).messages).toEqual([all[0]]);
    expect((await json(api(`/api/threads/${thread.id}/messages?before=${all[0].id}`))).messages).toEqual([]);
  });

  it("pages backwards with before, with no duplicates and no gaps", async () => {
    const pages: any[][] = [];
    let before = "";
    for (;;) {
      const page = await json(api(`/api/threads/${thread.id}/messages?limit=3${before ? `&before=${before}` : ""}`));
      if (page.messages.length === 0) break;
      expectOldestFirst(page.messages);
      expect(page.messages.length).toBeLessThanOrEqual(3);
      pages.unshift(page.messages);
      before = page.messages[0].id;
      if (pages.length > 50) throw new Error("paging does not end");
    }
    expect(pages.length).toBe(Math.ceil(all.length / 3));
    expect(pages.flat()).toEqual(all);
  });

  it("kinds=text answers only the user's and the assistant's text", async () => {
    const page = await json(api(`/api/threads/${thread.id}/messages?kinds=text`));
    expect(page.messages).toEqual(all.filter((m) => m.kind === "text"));
    expect(page.messages).toHaveLength(2);
    expect(page.lastSeq).toBe(lastSeq);
  });

  it("kinds takes a comma list (spaces allowed) and combines with before and limit", async () => {
    const page = await json(api(`/api/threads/${thread.id}/messages?kinds=${encodeURIComponent("status, thinking")}`));
    expect(page.messages).toEqual(all.filter((m) => m.kind === "status" || m.kind === "thinking"));
    const assistant = all.filter((m) => m.kind === "text")[1];
    const before = await json(api(`/api/threads/${thread.id}/messages?kinds=text&before=${assistant.id}`));
    expect(before.messages).toEqual([all.find((m) => m.id === user.id)]);
    const steps = await json(api(`/api/threads/${thread.id}/messages?kinds=pipeline_step&limit=2`));
    expect(steps.messages.map((m: any) => m.content)).toEqual(["invoking", "onAfterInvoke"]);
    expect((await json(api(`/api/threads/${thread.id}/messages?kinds=tool_call,tool_result`))).messages).toEqual([]);
    expect((await json(api(`/api/threads/${thread.id}/messages?kinds=`))).messages).toEqual(all);
  });

  it.each(["bogus", "text,bogus", "TEXT", "texts"])("refuses kinds=%s → 400 naming kinds", async (kinds) => {
    const error = await expectError(await api(`/api/threads/${thread.id}/messages?kinds=${kinds}`), 400, "invalid_request");
    expect(error.issues!.some((i) => i.path.startsWith("kinds")), JSON.stringify(error.issues)).toBe(true);
  });

  it("answers 404 for a before id that is unknown, or is another thread's message", async () => {
    await expectError(await api(`/api/threads/${thread.id}/messages?before=msg_nosuchmessage`), 404, "not_found");
    const other = await createThread({ name: "other" });
    const foreign = await accepted(other.id, { content: "elsewhere" });
    await expectError(await api(`/api/threads/${thread.id}/messages?before=${foreign.id}`), 404, "not_found");
  });

  it("answers 404 for an unknown thread", async () => {
    await expectError(await api("/api/threads/thr_unknown/messages"), 404, "not_found");
  });
});

describe("lastSeq", () => {
  it("is 0 with no messages on a new thread", async () => {
    const thread = await createThread();
    const res = await api(`/api/threads/${thread.id}/messages`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ messages: [], lastSeq: 0 });
  });

  it("counts every broadcast event, not only messages", async () => {
    const thread = await createThread();
    await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { name: "one event" } });
    expect(await messagesOf(thread.id)).toEqual({ messages: [], lastSeq: 1 });
  });

  it("lets a client connect with ?since=lastSeq and miss nothing posted in between", async () => {
    const thread = await createThread();
    const { lastSeq } = await messagesOf(thread.id);
    const message = await accepted(thread.id, { content: "while nobody listened" });
    const ws = await Socket.open(thread.id, `?since=${lastSeq}`);
    await ws.waitFor((f) => f.some((x) => x.event === "chat:message" && x.data.message.id === message.id));
    expect(ws.events()[0]).toMatchObject({ event: "chat:message", seq: lastSeq + 1, data: { threadId: thread.id, message } });
    await ws.waitForRunEnd();
    ws.close();
  });
});

describe("POST /api/threads/:id/messages", () => {
  it("answers 202 { message } with the stored user message", async () => {
    const thread = await createThread();
    const res = await post(thread.id, { content: "  keep my spacing\n" });
    expect(res.status).toBe(202);
    const body = await res.json<any>();
    expect(Object.keys(body)).toEqual(["message"]);
    expect(Object.keys(body.message).sort()).toEqual(USER_MESSAGE_KEYS);
    expect(body.message).toMatchObject({
      threadId: thread.id,
      role: "user",
      kind: "text",
      source: "web",
      content: "  keep my spacing\n",
      model: null,
      metadata: {},
      clientMessageId: null,
    });
    expect(body.message.id).toMatch(/^msg_/);
    const stored = await messagesOf(thread.id, "?kinds=text");
    expect(stored.messages[0]).toEqual(body.message);
  });

  it("answers at once, before the model does; stop ends the run as aborted", async () => {
    const m = marker("slow");
    await script(m, [{ kind: "hang", afterText: "thinking out loud" }]);
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const message = await accepted(thread.id, { content: `take your time ${m}` });
    // The stop comes once the whole partial text has reached the socket, so its stored copy is whole.
    await ws.waitFor((f) => streamedText(f) === "thinking out loud", 10_000, "the streamed text");
    expect(ws.events("pipeline:complete")).toHaveLength(0);
    expect(ws.events("pipeline:start")[0].data.messageId).toBe(message.id);

    const stop = await api(`/api/threads/${thread.id}/stop`, { method: "POST" });
    expect(stop.status).toBe(202);
    expect(await stop.json()).toEqual({ stopped: true });
    await ws.waitForRunEnd();
    expect(ws.events("pipeline:error")[0].data).toMatchObject({ code: "aborted", threadId: thread.id });
    const texts = (await messagesOf(thread.id, "?kinds=text")).messages;
    expect(texts[1]).toMatchObject({ role: "assistant", content: "thinking out loud", metadata: { aborted: true } });
    const again = await api(`/api/threads/${thread.id}/stop`, { method: "POST" });
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual({ stopped: false });
    ws.close();
  });

  it.each([
    ["empty content", { content: "" }, "content"],
    ["whitespace-only content", { content: " \n\t  " }, "content"],
    ["no content", {}, "content"],
    ["null content", { content: null }, "content"],
    ["non-string content", { content: 42 }, "content"],
    ["content over 100000 characters", { content: "x".repeat(100_001) }, "content"],
    ["an empty clientMessageId", { content: "hi", clientMessageId: "" }, "clientMessageId"],
    ["a clientMessageId over 128 characters", { content: "hi", clientMessageId: "c".repeat(129) }, "clientMessageId"],
    ["a non-string clientMessageId", { content: "hi", clientMessageId: 7 }, "clientMessageId"],
    ["an unknown field", { content: "hi", role: "assistant" }, ""],
  ])("refuses %s → 400, and stores nothing", async (_label, body, path) => {
    const thread = await createThread();
    await expectInvalid(await post(thread.id, body), path);
    expect(await roomRows(thread.id, "messages")).toBe(0);
  });

  it("accepts exactly 100000 characters and a 128-character clientMessageId", async () => {
    const thread = await createThread();
    const message = await accepted(thread.id, { content: "y".repeat(100_000), clientMessageId: "k".repeat(128) });
    expect(message.content).toHaveLength(100_000);
    expect(message.clientMessageId).toBe("k".repeat(128));
  });

  it("answers 404 for an unknown thread", async () => {
    await expectError(await post("thr_notthere", { content: "hello?" }), 404, "not_found");
  });

  it("the same clientMessageId again → 200 with the first message; one stored, one run", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const cid = `cid-${crypto.randomUUID()}`;
    const first = await post(thread.id, { content: "only once", clientMessageId: cid });
    expect(first.status).toBe(202);
    const firstMessage = (await first.json<any>()).message;
    expect(firstMessage.clientMessageId).toBe(cid);

    const second = await post(thread.id, { content: "only once", clientMessageId: cid });
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ message: firstMessage });
    // Even with other content, the retry answers the first message and stores nothing.
    const third = await post(thread.id, { content: "different words", clientMessageId: cid });
    expect(third.status).toBe(200);
    expect(await third.json()).toEqual({ message: firstMessage });

    await ws.waitForRunEnd(1);
    expect(await userMessagesWithClientId(thread.id, cid)).toBe(1);
    expect(await roomRows(thread.id, "messages", "content = ?", "different words")).toBe(0);
    const { followUp, starts } = await runsAfterFollowUp(thread.id, ws, 1);
    expect(starts).toEqual([firstMessage.id, followUp.id]);
    expect(ws.events("chat:message").filter((f) => f.data.message.role === "user")).toHaveLength(2);
    ws.close();
  });

  it("two concurrent posts with the same clientMessageId → one 202, one 200, one stored, one run", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const cid = `race-${crypto.randomUUID()}`;
    const [a, b] = await Promise.all([
      post(thread.id, { content: "racing", clientMessageId: cid }),
      post(thread.id, { content: "racing", clientMessageId: cid }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 202]);
    const [ma, mb] = [(await a.json<any>()).message, (await b.json<any>()).message];
    expect(ma).toEqual(mb);

    await ws.waitForRunEnd(1);
    expect(await userMessagesWithClientId(thread.id, cid)).toBe(1);
    const { followUp, starts } = await runsAfterFollowUp(thread.id, ws, 1);
    expect(starts).toEqual([ma.id, followUp.id]);
    ws.close();
  });

  it("dedupes across POST messages and POST /api/chat, several at once", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const cid = `mixed-${crypto.randomUUID()}`;
    const responses = await Promise.all([
      post(thread.id, { content: "mixed", clientMessageId: cid }),
      api("/api/chat", { body: { threadId: thread.id, content: "mixed", clientMessageId: cid } }),
      post(thread.id, { content: "mixed", clientMessageId: cid }),
      api("/api/chat", { body: { threadId: thread.id, content: "mixed", clientMessageId: cid } }),
    ]);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 202]);
    const messages = await Promise.all(responses.map(async (r) => (await r.json<any>()).message));
    expect(new Set(messages.map((m) => m.id)).size).toBe(1);
    await ws.waitForRunEnd(1);
    expect(await userMessagesWithClientId(thread.id, cid)).toBe(1);
    const { starts } = await runsAfterFollowUp(thread.id, ws, 1);
    expect(starts).toHaveLength(2);
    ws.close();
  });

  it("a clientMessageId is scoped to its thread", async () => {
    const [one, two] = [await createThread(), await createThread()];
    const cid = `shared-${crypto.randomUUID()}`;
    const a = await accepted(one.id, { content: "in one", clientMessageId: cid });
    const b = await accepted(two.id, { content: "in two", clientMessageId: cid });
    expect(a.id).not.toBe(b.id);
    expect(b).toMatchObject({ threadId: two.id, content: "in two" });
  });

  it("posting to an archived thread → 409 conflict; nothing stored; unarchived it works again", async () => {
    const thread = await createThread();
    const archived = await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { status: "archived" } });
    expect(archived.status).toBe(200);

    await expectError(await post(thread.id, { content: "into the archive" }), 409, "conflict");
    await expectError(
      await api("/api/chat", { body: { threadId: thread.id, content: "via chat", clientMessageId: "arch-1" } }),
      409,
      "conflict",
    );
    expect(await roomRows(thread.id, "messages")).toBe(0);
    expect((await messagesOf(thread.id)).messages).toEqual([]);

    await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { status: "open" } });
    const message = await accepted(thread.id, { content: "back again", clientMessageId: "arch-1" });
    expect(message.content).toBe("back again");
  });
});

describe("POST /api/chat", () => {
  it("answers like POST messages: 202 { message }, then 200 for the same clientMessageId", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const first = await api("/api/chat", { body: { threadId: thread.id, content: "via the old route", clientMessageId: "chat-1" } });
    expect(first.status).toBe(202);
    const { message } = await first.json<any>();
    expect(message).toMatchObject({ threadId: thread.id, role: "user", kind: "text", content: "via the old route" });
    const again = await api("/api/chat", { body: { threadId: thread.id, content: "via the old route", clientMessageId: "chat-1" } });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ message });
    await ws.waitForRunEnd();
    const texts = (await messagesOf(thread.id, "?kinds=text")).messages;
    expect(texts.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(texts[0]).toEqual(message);
    ws.close();
  });

  it("validates like POST messages, and needs a threadId", async () => {
    const thread = await createThread();
    await expectInvalid(await api("/api/chat", { body: { threadId: thread.id, content: "   " } }), "content");
    await expectInvalid(await api("/api/chat", { body: { content: "hi" } }), "threadId");
    await expectInvalid(await api("/api/chat", { body: { threadId: "", content: "hi" } }), "threadId");
    await expectInvalid(await api("/api/chat", { body: { threadId: thread.id, content: "hi", extra: 1 } }), "");
    await expectError(await api("/api/chat", { body: { threadId: "thr_none", content: "hi" } }), 404, "not_found");
  });
});
