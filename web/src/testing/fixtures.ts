// Builders for the web app's unit tests: protocol shapes with defaults, frames, and a Storage.

import type { Attachment, EventFrame, EventMap, EventName, Message, Research, Subquestion, Task, Thread } from "@protocol";

export function message(over: Partial<Message> = {}): Message {
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
    createdAt: 1_000,
    ...over,
  };
}

export function task(over: Partial<Task> = {}): Task {
  return {
    id: "task_1",
    threadId: "thr_child",
    parentThreadId: "thr_1",
    status: "running",
    prompt: "summarise",
    result: null,
    model: null,
    maxIterations: 5,
    currentIteration: 1,
    costUsd: 0,
    verdict: null,
    createdAt: 1_000,
    updatedAt: 1_000,
    ...over,
  };
}

export function subquestion(over: Partial<Subquestion> = {}): Subquestion {
  return { text: "What is it?", taskId: null, status: "planned", sources: [], ...over };
}

export function research(over: Partial<Research> = {}): Research {
  return {
    id: "res_1",
    threadId: "thr_1",
    question: "How do heat pumps work in cold climates?",
    status: "running",
    subquestions: [subquestion()],
    artifactId: null,
    costUsd: 0,
    startedAt: 10_000,
    endedAt: null,
    ...over,
  };
}

/** A broadcast event as the socket delivers it. */
export function frame<K extends EventName>(event: K, data: EventMap[K], seq = 1, timestamp = 2_000): EventFrame<K> {
  return { event, data, seq, timestamp } as EventFrame<K>;
}

/** An in-memory Storage (localStorage's interface), with its keys for assertions. */
export function memoryStore() {
  const map = new Map<string, string>();
  return {
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, String(v)),
    removeItem: (k: string) => void map.delete(k),
    key: (i: number) => [...map.keys()][i] ?? null,
    get length() {
      return map.size;
    },
    keys: () => [...map.keys()],
  };
}

export function attachment(over: Partial<Attachment> = {}): Attachment {
  return { id: "att_1", threadId: "thr_1", name: "photo.png", mediaType: "image/png", bytes: 1_234, createdAt: 1_000, ...over };
}

export function thread(over: Partial<Thread> = {}): Thread {
  return {
    id: "thr_1",
    name: "a thread",
    kind: "general",
    status: "open",
    model: "m",
    sessionId: null,
    parentThreadId: null,
    instructions: "",
    headId: null,
    lastActivity: 1_000,
    createdAt: 1_000,
    ...over,
  };
}
