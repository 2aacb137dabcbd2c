// The `send` frame: POST messages over the thread's open socket, through the object's one intake. It
// is answered on that socket only (`accepted`, or `error` with the code POST would answer), shares
// POST's idempotency, and passes the same checks.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { ThreadRoom } from "../../worker/thread/room";
import { api, createThread, env, type Frame, marker, messagesOf, script, settle, Socket, threadObject, upstreamRequests } from "../helpers";
import { createThreadVia, openSocketVia, tokenUsers } from "../http/util";

afterEach(() => settle());


/** Sends a frame and waits for its answer (`accepted` or `error` naming its clientMessageId). */
async function send(ws: Socket, frame: Record<string, unknown>): Promise<Frame> {
  const id = frame.clientMessageId;
  const from = ws.frames.length;
  ws.send({ type: "send", ...frame });
  const answered = (f: Frame) => (f.event === "accepted" || f.event === "error") && f.data.clientMessageId === id;
  const frames = await ws.waitFor((fs) => fs.slice(from).some(answered), 10_000, `the answer to ${String(id)}`);
  return frames.slice(from).find(answered)!;
}

const cid = () => `c-${crypto.randomUUID()}`;

describe("a send frame", () => {
  it("is accepted on its socket only, runs like a post, and a repeat or a POST retry answers the same message", async () => {
    const thread = await createThread();
    const [ws, other] = [await Socket.open(thread.id), await Socket.open(thread.id)];
    const clientMessageId = cid();
    const accepted = await send(ws, { content: "over the socket", clientMessageId });
    expect(accepted.seq).toBeUndefined();
    expect(accepted.data).toMatchObject({ clientMessageId, duplicate: false, message: { role: "user", content: "over the socket", clientMessageId } });
    await ws.waitForRunEnd();
    // Every tab sees the message and the run; only the sender gets `accepted`.
    await other.waitForRunEnd();
    expect(other.frames.some((f) => f.event === "accepted")).toBe(false);
    expect(other.events("chat:message").map((f) => f.data.message.content)).toEqual(["over the socket", "Echo: over the socket"]);

    const again = await send(ws, { content: "over the socket", clientMessageId });
    expect(again.data).toMatchObject({ duplicate: true, message: { id: accepted.data.message.id } });
    const retried = await api(`/api/threads/${thread.id}/messages`, { body: { content: "over the socket", clientMessageId } });
    expect(retried.status).toBe(200);
    expect((await retried.json<any>()).message.id).toBe(accepted.data.message.id);
    await settle();
    const users = (await messagesOf(thread.id)).messages.filter((m) => m.role === "user");
    expect(users).toHaveLength(1);
    expect(ws.events("pipeline:start")).toHaveLength(1);
    ws.close();
    other.close();
  });

  it("and a POST of the same message racing it store it once and run it once", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const clientMessageId = cid();
    const [answer, res] = await Promise.all([
      send(ws, { content: "raced", clientMessageId }),
      api(`/api/threads/${thread.id}/messages`, { body: { content: "raced", clientMessageId } }),
    ]);
    const posted = (await res.json<any>()).message;
    expect(answer.data.message.id).toBe(posted.id);
    // Exactly one of the two took it first.
    expect([answer.data.duplicate, res.status === 200]).toContain(true);
    expect([answer.data.duplicate, res.status === 200]).toContain(false);
    await ws.waitForRunEnd();
    await settle();
    expect(ws.events("pipeline:start")).toHaveLength(1);
    ws.close();
  });

  it("refuses what POST refuses, as an error frame with POST's code, storing nothing", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const refusals = {
      empty: await send(ws, { content: "   ", clientMessageId: cid() }),
      unknownAttachment: await send(ws, { content: "see this", clientMessageId: cid(), attachments: ["att_nope"] }),
      tooManyAttachments: await send(ws, { content: "see these", clientMessageId: cid(), attachments: Array.from({ length: 11 }, (_, i) => `att_${i}`) }),
      extraField: await send(ws, { content: "hi", clientMessageId: cid(), role: "system" }),
    };
    expect(Object.fromEntries(Object.entries(refusals).map(([k, f]) => [k, [f.event, f.data.code]]))).toEqual({
      empty: ["error", "invalid_request"],
      unknownAttachment: ["error", "invalid_request"],
      tooManyAttachments: ["error", "too_large"],
      extraField: ["error", "invalid_request"],
    });
    // Without a clientMessageId there is nothing to answer by: the frame itself is refused.
    ws.send({ type: "send", content: "no id" });
    const bad = await ws.waitFor((fs) => fs.some((f) => f.event === "error" && f.data.clientMessageId === undefined && f.data.code === "invalid_request"));
    expect(bad.at(-1)!.seq).toBeUndefined();
    expect((await messagesOf(thread.id)).messages).toHaveLength(0);
    expect(ws.closed).toBe(false);
    ws.close();
  });

  it("counts against the per-user rate limit, as POST does, and says when to try again", async () => {
    const { users, tokenEnv, as } = tokenUsers("sender");
    const thread = await createThreadVia(as(users.sender));
    await runInDurableObject(threadObject(thread.id), (r: ThreadRoom) => void (r.faults.limits.posts = env.TIGHT_LIMITER));
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.sender.token}` });
    // The tight limiter takes 3 a minute: two sends and a POST, then the fourth (a send) is refused.
    for (const content of ["one", "two"]) expect((await send(ws, { content, clientMessageId: cid() })).event).toBe("accepted");
    expect((await as(users.sender)(`/api/threads/${thread.id}/messages`, { body: { content: "three" } })).status).toBe(202);
    const refused = await send(ws, { content: "four", clientMessageId: cid() });
    expect(refused.data).toMatchObject({ code: "rate_limited", retryAfter: 60, message: expect.stringMatching(/messages/) });
    expect((await as(users.sender)(`/api/threads/${thread.id}/messages`, { body: { content: "five" } })).status).toBe(429);
    await settle();
    ws.close();
  });

  it("is refused past the daily spend cap, naming the cap, without calling the model", async () => {
    const { users, tokenEnv, as } = tokenUsers("spender");
    const thread = await createThreadVia(as(users.spender));
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.spender.token}` });
    const m = marker("costly");
    // 4M output tokens on Sonnet: $60, past the $50 cap in one run.
    await script(m, [{ kind: "text", text: "An expensive answer.", usage: { output_tokens: 4_000_000 } }]);
    expect((await send(ws, { content: `spend ${m}`, clientMessageId: cid() })).event).toBe("accepted");
    await ws.waitForRunEnd();
    const refused = await send(ws, { content: `more ${m}`, clientMessageId: cid() });
    expect(refused.data).toMatchObject({ code: "rate_limited", message: expect.stringContaining("$50.00") });
    expect(refused.data.retryAfter).toBeGreaterThan(0);
    expect(await upstreamRequests(m)).toHaveLength(1);
    ws.close();
  });

  it("is refused with rate_limited once the thread's queue is full", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const m = marker("slow");
    await script(m, [{ kind: "hang", afterText: "thinking…" }]);
    expect((await send(ws, { content: m, clientMessageId: cid() })).event).toBe("accepted");
    const answers: Frame[] = [];
    for (let i = 0; i < 20; i++) answers.push(await send(ws, { content: `queued ${i}`, clientMessageId: cid() }));
    expect(answers.slice(0, 19).every((f) => f.event === "accepted")).toBe(true);
    expect(answers[19].data).toMatchObject({ code: "rate_limited", retryAfter: 5 });
    ws.send({ type: "stop" });
    await ws.waitForRunEnd(20, 15_000);
    ws.close();
  });
});
