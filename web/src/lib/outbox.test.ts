import type { Message } from "@protocol";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

type OutboxModule = typeof import("./outbox");

const memoryStorage = () => {
  const map = new Map<string, string>();
  return {
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, v),
    removeItem: (k: string) => void map.delete(k),
  };
};

function userMessage(over: Partial<Message>): Message {
  return {
    id: "msg_1",
    threadId: "thr_1",
    role: "user",
    kind: "text",
    source: "web",
    content: "hello",
    model: null,
    metadata: {},
    clientMessageId: null,
    parentId: null,
    createdAt: 1,
    ...over,
  };
}

let mod: OutboxModule;

beforeEach(async () => {
  vi.resetModules();
  vi.stubGlobal("localStorage", memoryStorage());
  vi.stubGlobal("window", { addEventListener: () => {} });
  // The POST never answers: only the socket can tell the outbox that the message landed.
  vi.stubGlobal("fetch", () => new Promise(() => {}));
  mod = await import("./outbox");
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("outbox reconcile", () => {
  it("drops the pending item when the socket brings its message, matched by the top-level clientMessageId", () => {
    const item = mod.outbox.enqueue("thr_1", "hello");
    mod.outbox.reconcile(userMessage({ clientMessageId: item.clientMessageId }));
    expect(mod.outbox.getSnapshot()).toEqual([]);
  });

  it("keeps its item visible when another client's message has the same content", () => {
    const item = mod.outbox.enqueue("thr_1", "hello");
    mod.outbox.reconcile(userMessage({ id: "msg_other", clientMessageId: "someone-else" }));
    expect(mod.outbox.getSnapshot()).toMatchObject([{ clientMessageId: item.clientMessageId }]);
    expect(mod.outbox.getSnapshot()[0].echoedMessageId).toBeUndefined();
  });

  it("hides, but keeps waiting on, its item when a look-alike without a clientMessageId arrives", () => {
    const item = mod.outbox.enqueue("thr_1", "hello");
    mod.outbox.reconcile(userMessage({ id: "msg_api", clientMessageId: null }));
    expect(mod.outbox.getSnapshot()).toMatchObject([{ clientMessageId: item.clientMessageId, echoedMessageId: "msg_api" }]);
  });
});
