// Delegation cannot loop without bound: tasks per user and day are capped (USER_TASKS_PER_DAY), and a
// thread reacts to news (its tasks' results) at most MAX_AUTO_RUNS times in a row without a message
// from its user. The /delegate parser is linear in the line's length.
import { afterEach, describe, expect, it } from "vitest";
import { parseDelegateArgs } from "../../worker/plugins/delegation/commands";
import { roomStub } from "../../worker/thread/room-stub";
import { api, createThread, env, marker, messagesOf, script, settle, Socket, userObject } from "../helpers";
import { createThreadVia, openSocketVia, tokenUsers } from "../http/util";

afterEach(() => settle());

describe("tasks per user and day", () => {
  it("refuse a delegation once the user has made USER_TASKS_PER_DAY tasks today, and make no task", async () => {
    const { users, tokenEnv, as } = tokenUsers("delegator");
    const call = as(users.delegator);
    const parent = await createThreadVia(call);
    // 100 tasks today already: the default cap.
    const now = Date.now();
    const owner = userObject(users.delegator.id);
    for (let i = 0; i < 100; i++) {
      const row = { id: `task_bound_${i}`, ownerId: users.delegator.id, threadId: parent.id, parentThreadId: parent.id, status: "completed" as const, prompt: "p", result: null, model: null, depth: 1, maxIterations: 1, currentIteration: 1, costUsd: 0, verdict: null, createdAt: now - i, updatedAt: now - i };
      expect((await owner.createTask(row, { perThread: 1_000, perDay: 1_000 })).ok).toBe(true);
    }
    const ws = await openSocketVia(tokenEnv, `/api/threads/${parent.id}/ws`, { authorization: `Bearer ${users.delegator.token}` });
    const [p, c] = [marker("p"), marker("c")];
    await script(p, [{ kind: "text", text: `On it.\n/delegate one more ${c}` }]);
    expect((await call(`/api/threads/${parent.id}/messages`, { body: { content: `delegate ${p}` } })).status).toBe(202);
    await ws.waitForRunEnd();
    const texts = await (await call(`/api/threads/${parent.id}/messages?kinds=text`)).json<any>();
    expect(texts.messages.map((m: any) => m.content)).toContain("Delegation refused: Daily task limit reached (100 a day); it resets at 00:00 UTC");
    expect(await owner.tasks({})).toHaveLength(100);
    ws.close();
  });
});

describe("runs on news", () => {
  /** News for the thread, as a task's result reaches its parent: a system message that runs. */
  const news = (threadId: string, i: number) =>
    roomStub(env, threadId).accept({ threadId, userId: "local" }, { content: `[Task ${i} completed]`, role: "system", source: "delegation" });

  it("stop after MAX_AUTO_RUNS in a row without a message from the user; the news is still kept", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    for (let i = 1; i <= 5; i++) {
      expect((await news(thread.id, i)).ok).toBe(true);
      await ws.waitForRunEnd(i);
    }
    const sixth = await news(thread.id, 6);
    expect(sixth.ok).toBe(true);
    // A later message's run shows that none started for the sixth: the user's post is the next run.
    const m = marker("user");
    await script(m, [{ kind: "text", text: "back to you" }]);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: m } });
    await ws.waitForRunEnd(6);
    const starts = ws.events("pipeline:start").map((f) => f.data.messageId);
    expect(starts).toHaveLength(6);
    expect(starts).not.toContain(sixth.ok && sixth.value.message.id);
    expect((await messagesOf(thread.id, "?kinds=text")).messages.map((x) => x.content)).toContain("[Task 6 completed]");
    // The user spoke: news runs again.
    await news(thread.id, 7);
    await ws.waitForRunEnd(7);
    expect(ws.events("pipeline:start")).toHaveLength(7);
    ws.close();
  });
});

describe("the /delegate parser", () => {
  it("is linear in the line's length: long runs of spaces before and between options", () => {
    const spaces = " ".repeat(200_000);
    const started = performance.now();
    const req = parseDelegateArgs(`do it${spaces}model=m${spaces}maxIterations=2${spaces}x`);
    const tail = parseDelegateArgs(`do it${spaces}model=m${spaces}maxIterations=2`);
    // A quadratic parse of these lines takes tens of seconds; a linear one, milliseconds.
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(req).toEqual({ prompt: `do it${spaces}model=m${spaces}maxIterations=2${spaces}x` });
    expect(tail).toEqual({ prompt: "do it", model: "m", maxIterations: 2 });
    expect(parseDelegateArgs("model=m")).toEqual({ prompt: "", model: "m" });
    expect(parseDelegateArgs("a model=first model=second")).toEqual({ prompt: "a", model: "first" });
  });
});
