import { MESSAGE_PAGE, type ServerFrame } from "@protocol";
import { describe, expect, it } from "vitest";
import { frame, message, task } from "../testing/fixtures";
import { chatReducer, initialChatState, type ChatAction, type ChatState } from "./chatState";

const run = { threadId: "thr_1", runId: "run_1" };

/** The state after each action in turn, from a thread whose messages are loading. */
const apply = (...actions: ChatAction[]) => actions.reduce(chatReducer, initialChatState("thr_1"));
const on = (f: ServerFrame): ChatAction => ({ type: "frame", frame: f });

const user = message({ id: "msg_u1", content: "hi" });
const reply = message({ id: "msg_a1", role: "assistant", content: "hello", metadata: { runId: "run_1" }, createdAt: 3_000 });

/** A whole run as the socket delivers it. */
const wholeRun: ChatAction[] = [
  on(frame("chat:message", { threadId: "thr_1", message: user }, 1)),
  on(frame("pipeline:start", { ...run, messageId: "msg_u1" }, 2, 2_000)),
  on(frame("pipeline:step", { ...run, step: "onMessage" }, 3)),
  on(frame("pipeline:step", { ...run, step: "invoking", detail: "claude-sonnet-4-6" }, 4)),
  on(frame("pipeline:stream", { ...run, type: "thinking", delta: "Let me " }, 5)),
  on(frame("pipeline:stream", { ...run, type: "thinking", delta: "think." }, 6)),
  on(frame("pipeline:stream", { ...run, type: "tool_call", toolUseId: "tu_1", toolName: "time__now", input: {} }, 7)),
  on(frame("pipeline:stream", { ...run, type: "tool_result", toolUseId: "tu_1", toolName: "time__now", content: "noon", isError: false }, 8)),
  on(frame("pipeline:stream", { ...run, type: "text", delta: "hel" }, 9)),
  on(frame("pipeline:stream", { ...run, type: "text", delta: "lo" }, 10)),
  on(frame("pipeline:step", { ...run, step: "onAfterInvoke", detail: "42 tokens", usage: { inputTokens: 30, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 } }, 11)),
  on(frame("chat:message", { threadId: "thr_1", message: reply }, 12)),
  on(frame("pipeline:complete", { ...run, commandsHandled: ["/x"], commandsUnhandled: [], durationMs: 900 }, 13)),
];

describe("chat reducer: loading", () => {
  it("starts loading for a thread, idle for a new conversation", () => {
    expect(initialChatState("thr_1").load).toBe("loading");
    expect(initialChatState(null).load).toBe("idle");
  });

  it("keeps a message that arrived while the page loaded", () => {
    const early = message({ id: "msg_early", createdAt: 5_000 });
    const state = apply({ type: "message", message: early }, { type: "loaded", messages: [user], hasOlder: true });
    expect(state.messages.map((m) => m.id)).toEqual(["msg_u1", "msg_early"]);
    expect(state).toMatchObject({ load: "ready", hasOlder: true });
  });

  it("prepends older pages without duplicates", () => {
    const older = message({ id: "msg_old", createdAt: 1 });
    const state = apply(
      { type: "loaded", messages: [user], hasOlder: true },
      { type: "olderLoading" },
      { type: "olderLoaded", messages: [older, user], hasOlder: false },
    );
    expect(state.messages.map((m) => m.id)).toEqual(["msg_old", "msg_u1"]);
    expect(state).toMatchObject({ loadingOlder: false, hasOlder: false });
  });

  it("records a failed load", () => {
    expect(apply({ type: "loadFailed", error: "offline" })).toMatchObject({ load: "error", loadError: "offline" });
  });
});

describe("chat reducer: a run", () => {
  it("follows a run from start to complete", () => {
    const state = apply({ type: "loaded", messages: [], hasOlder: false }, ...wholeRun);
    const live = state.runs.run_1;
    expect(state.running).toBeNull();
    expect(state.runOrder).toEqual(["run_1"]);
    expect(live).toMatchObject({
      messageId: "msg_u1",
      status: "complete",
      text: "hello",
      model: "claude-sonnet-4-6",
      usage: { inputTokens: 30, outputTokens: 12 },
      durationMs: 900,
      commandsHandled: ["/x"],
    });
    expect(live.steps.map((s) => s.step)).toEqual(["onMessage", "invoking", "onAfterInvoke"]);
    // Consecutive thinking deltas make one block; tools are blocks of their own, in stream order.
    expect(live.blocks.map((b) => b.kind)).toEqual(["thinking", "tool_call", "tool_result"]);
    expect(live.blocks[0]).toMatchObject({ text: "Let me think." });
    expect(new Set(live.blocks.map((b) => b.key)).size).toBe(3);
    expect(state.messages.map((m) => m.id)).toEqual(["msg_u1", "msg_a1"]);
  });

  it("is running between its start and its end", () => {
    const state = apply(...wholeRun.slice(0, 5));
    expect(state.running).toBe("run_1");
    expect(state.runs.run_1.status).toBe("running");
  });

  it("keeps a failure's code and message", () => {
    const state = apply(
      ...wholeRun.slice(0, 2),
      on(frame("pipeline:error", { ...run, code: "overloaded", message: "busy", retryable: true }, 3, 2_500)),
    );
    expect(state.running).toBeNull();
    expect(state.runs.run_1).toMatchObject({ status: "error", error: { code: "overloaded", message: "busy", retryable: true }, durationMs: 500 });
  });

  it("shows a run joined mid-way at once, from the ready frame, and from its stream", () => {
    const ready = apply(on({ event: "ready", data: { lastSeq: 9, running: "run_9" }, timestamp: 1 }));
    expect(ready.running).toBe("run_9");
    expect(ready.runs.run_9).toMatchObject({ messageId: null, status: "running" });

    const streamed = apply(on(frame("pipeline:stream", { threadId: "thr_1", runId: "run_7", type: "text", delta: "mid" }, 5)));
    expect(streamed.running).toBe("run_7");
    expect(streamed.runs.run_7.text).toBe("mid");
  });

  it("forgets a run to replay it from its start", () => {
    const state = apply(...wholeRun.slice(0, 9), { type: "resetRun", runId: "run_1" });
    expect(state.runs).toEqual({});
    expect(state.runOrder).toEqual([]);
  });
});

describe("chat reducer: messages", () => {
  it("drops a message it already holds", () => {
    const state = apply(on(frame("chat:message", { threadId: "thr_1", message: user })), { type: "message", message: user });
    expect(state.messages).toHaveLength(1);
  });

  it("adds a cross-thread notification's message", () => {
    const note = message({ id: "msg_n", role: "system", metadata: { type: "cross-thread-notification" } });
    const state = apply(
      on(frame("thread:notification", { threadId: "thr_1", sourceThreadId: "thr_c", taskId: "task_1", status: "completed", message: note })),
    );
    expect(state.messages.map((m) => m.id)).toEqual(["msg_n"]);
  });

  it("takes a reload as the truth, keeps what is newer, and ends runs the server no longer runs", () => {
    const newer = message({ id: "msg_new", createdAt: 9_000 });
    const gone = message({ id: "msg_gone", createdAt: 500 });
    const state = apply(
      { type: "loaded", messages: [gone, user], hasOlder: false },
      ...wholeRun.slice(1, 5),
      on({ event: "ready", data: { lastSeq: 20, running: null }, timestamp: 1 }),
      { type: "message", message: newer },
      { type: "reloaded", messages: [user, reply] },
    );
    expect(state.messages.map((m) => m.id)).toEqual(["msg_u1", "msg_a1", "msg_new"]);
    expect(state.runs.run_1.status).toBe("complete");
  });

  it("shows the new branch that thread:updated brings, without the old branch's runs", () => {
    const other = message({ id: "msg_u2", content: "edited" });
    const thread = { id: "thr_1", name: "t", kind: "general", status: "active", model: "m", sessionId: null, parentThreadId: null, instructions: "", headId: "msg_u2", lastActivity: 1, createdAt: 1 } as const;
    const state = apply(...wholeRun, on(frame("thread:updated", { threadId: "thr_1", thread, messages: [other] }, 14)));
    expect(state.messages.map((m) => m.id)).toEqual(["msg_u2"]);
    expect(state.runOrder).toEqual([]);
    // Without messages (a rename), nothing changes.
    const renamed = apply(...wholeRun, on(frame("thread:updated", { threadId: "thr_1", thread }, 14)));
    expect(renamed.messages).toHaveLength(2);
  });
});

describe("chat reducer: edits and branch switches", () => {
  const second = message({ id: "msg_u2", parentId: "msg_u1", content: "more", createdAt: 4_000 });
  const secondReply = message({ id: "msg_a2", role: "assistant", parentId: "msg_u2", metadata: { runId: "run_2" }, createdAt: 5_000 });
  const run2 = { threadId: "thr_1", runId: "run_2" };
  const twoExchanges: ChatAction[] = [
    ...wholeRun,
    on(frame("chat:message", { threadId: "thr_1", message: second }, 14)),
    on(frame("pipeline:start", { ...run2, messageId: "msg_u2" }, 15)),
    on(frame("chat:message", { threadId: "thr_1", message: secondReply }, 16)),
    on(frame("pipeline:complete", { ...run2, commandsHandled: [], commandsUnhandled: [], durationMs: 10 }, 17)),
  ];

  it("cuts the edited message and what followed it, with the runs that answered them", () => {
    const state = apply(...twoExchanges, { type: "cutAt", messageId: "msg_u2" });
    expect(state.messages.map((m) => m.id)).toEqual(["msg_u1", "msg_a1"]);
    expect(state.runOrder).toEqual(["run_1"]);
    expect([...state.ids]).toEqual(["msg_u1", "msg_a1"]);
    // The new version then arrives as any message does.
    const edited = message({ id: "msg_u3", parentId: "msg_u1", siblings: ["msg_u2", "msg_u3"], createdAt: 6_000 });
    expect(chatReducer(state, { type: "message", message: edited }).messages.map((m) => m.id)).toEqual(["msg_u1", "msg_a1", "msg_u3"]);
  });

  it("leaves the state alone when the edited message is not shown", () => {
    const state = apply(...twoExchanges);
    expect(chatReducer(state, { type: "cutAt", messageId: "msg_elsewhere" })).toBe(state);
  });

  it("shows a branch read after a switch, and knows whether older pages remain", () => {
    const state = apply(...twoExchanges, { type: "branch", messages: [user, reply] });
    expect(state.messages.map((m) => m.id)).toEqual(["msg_u1", "msg_a1"]);
    expect(state.runOrder).toEqual(["run_1"]);
    expect(state.hasOlder).toBe(false);
    const long = Array.from({ length: MESSAGE_PAGE }, (_, i) => message({ id: `msg_${i}`, createdAt: i }));
    expect(chatReducer(state, { type: "branch", messages: long }).hasOlder).toBe(true);
  });

  it("a run in progress stays through a branch change (its events still come)", () => {
    const running = apply(...wholeRun.slice(0, 5));
    const state = chatReducer(running, { type: "branch", messages: [second] });
    expect(state.runOrder).toEqual(["run_1"]);
    expect(state.running).toBe("run_1");
  });
});

describe("chat reducer: what it does not own", () => {
  it("leaves task events to the query cache", () => {
    const before: ChatState = apply(...wholeRun);
    expect(chatReducer(before, on(frame("task:created", { threadId: "thr_1", task: task() }, 14)))).toBe(before);
  });
});
