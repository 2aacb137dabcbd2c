// A deployment with data from before the objects (LEGACY_IMPORT): a thread's object that holds nothing
// looks for its thread in D1 once; found, it keeps its rows as one branch; not found, it remembers that
// for its life. A deleted thread's old rows leave D1 with it, and cannot bring it back.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { ThreadRoom } from "../../worker/thread/room";
import { api, env, messagesOf, settle, Socket, threadObject, until } from "../helpers";
import { countRows, expectError } from "../http/util";
import { insertThread } from "./d1-rows";

const inRoom = <T>(threadId: string, fn: (room: ThreadRoom) => T) => runInDurableObject(threadObject(threadId), (room: ThreadRoom) => fn(room));

async function post(threadId: string, content: string, clientMessageId?: string) {
  return api(`/api/threads/${threadId}/messages`, { body: { content, ...(clientMessageId ? { clientMessageId } : {}) } });
}

afterEach(() => settle());

describe("threads from before the object was their store", () => {
  async function legacyThread(
    texts = [
      ["msg_old1", "user", "first question", "cid-old-1"],
      ["msg_old2", "assistant", "first answer", null],
      ["msg_old3", "user", "second question", null],
      ["msg_old4", "assistant", "second answer", null],
    ],
  ) {
    const id = await insertThread({ ownerId: "local", name: "from D1" });
    const now = Date.now() - 10_000;
    const rows = texts.map(([mid, role, content, cid], i) =>
      env.DB.prepare("INSERT INTO messages (id, thread_id, role, kind, source, content, metadata, client_message_id, created_at) VALUES (?, ?, ?, 'text', 'web', ?, '{}', ?, ?)")
        .bind(`${mid}_${id}`, id, role, content, cid, now + i),
    );
    await env.DB.batch(rows);
    return id;
  }

  it("loads from D1 once, on first touch, as one branch", async () => {
    const id = await legacyThread();
    const { messages } = await messagesOf(id);
    expect(messages.map((m) => [m.role, m.content, m.parentId])).toEqual([
      ["user", "first question", null],
      ["assistant", "first answer", `msg_old1_${id}`],
      ["user", "second question", `msg_old1_${id}`],
      ["assistant", "second answer", `msg_old3_${id}`],
    ]);
    const { thread } = await (await api(`/api/threads/${id}`)).json<any>();
    expect(thread).toMatchObject({ name: "from D1", headId: `msg_old3_${id}` });
  });

  it("answers the next message of one with more exchanges than SQLite binds parameters (100)", async () => {
    const texts = Array.from({ length: 120 }, (_, i) => [
      [`msg_q${i}`, "user", `question ${i}`, null],
      [`msg_a${i}`, "assistant", `answer ${i}`, null],
    ]).flat();
    const id = await legacyThread(texts);
    const ws = await Socket.open(id);
    expect((await post(id, "and the next one?")).status).toBe(202);
    const [end] = (await ws.waitForRunEnd(1)).filter((f) => f.event === "pipeline:complete" || f.event === "pipeline:error");
    expect(end.event).toBe("pipeline:complete");
    const latest = (await messagesOf(id, "?kinds=text")).messages;
    expect(latest.slice(-3).map((m: any) => [m.role, m.content === "and the next one?"])).toEqual([["assistant", false], ["user", true], ["assistant", false]]);
    expect(latest.at(-3).content).toBe("answer 119");
    ws.close();
  });

  it("answers a clientMessageId D1 already had as a duplicate, and runs nothing", async () => {
    const id = await legacyThread();
    const again = await post(id, "first question", "cid-old-1");
    expect(again.status).toBe(200);
    expect((await again.json<any>()).message.id).toBe(`msg_old1_${id}`);
    expect(await inRoom(id, (room) => room.activity())).toEqual({ running: false, queued: 0 });
  });
});

describe("an id D1 does not hold either", () => {
  it("is a 404 that reads D1 once: a row D1 gets later is not looked for again by that object", async () => {
    const id = `thr_${Date.now().toString(36).padStart(9, "0")}unknown${crypto.randomUUID().slice(0, 3)}`;
    await expectError(await api(`/api/threads/${id}`), 404, "not_found");
    await insertThread({ id, ownerId: "local", name: "arrived late" });
    await expectError(await api(`/api/threads/${id}`), 404, "not_found");
    await expectError(await api(`/api/threads/${id}/messages`), 404, "not_found");
  });
});

describe("a deleted thread from before", () => {
  it("takes its old rows out of D1, and a copy left there cannot bring it back", async () => {
    const id = await insertThread({ ownerId: "local", name: "old and deleted" });
    await env.DB.prepare("INSERT INTO messages (id, thread_id, role, kind, source, content, created_at) VALUES (?, ?, 'user', 'text', 'web', 'old words', ?)").bind(`msg_old_${id}`, id, Date.now()).run();
    expect((await messagesOf(id)).messages).toHaveLength(1);
    expect((await api(`/api/threads/${id}`, { method: "DELETE" })).status).toBe(204);
    await until(() => countRows("threads", "id = ?", id), (n) => n === 0);
    expect(await countRows("messages", "thread_id = ?", id)).toBe(0);
    // The tombstone: a copy of the thread in D1 again (say, a delete that failed half-way) stays out.
    await insertThread({ id, ownerId: "local" });
    await expectError(await api(`/api/threads/${id}`), 404, "not_found");
  });
});
