// An object made by an older version opens with its rows intact: schema 8 moved the replay buffer
// into batches, schema 9 rebuilt messages without a rowid, schema 10 added the thread's code execution
// switch and container (worker/thread/store/schema.ts).
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ThreadRoom } from "../../worker/thread/room";
import { migrate } from "../../worker/thread/store/schema";
import { threadObject } from "../helpers";

/** The tables of schema 7 that later versions changed, as that version made them. */
const SCHEMA_7 = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta (key, value) VALUES ('schema', '7');
CREATE TABLE messages (
  id TEXT PRIMARY KEY, role TEXT NOT NULL, kind TEXT NOT NULL, source TEXT NOT NULL, content TEXT NOT NULL,
  model TEXT, metadata TEXT NOT NULL DEFAULT '{}', client_message_id TEXT UNIQUE, parent_id TEXT,
  input INTEGER NOT NULL DEFAULT 0, attachments TEXT, created_at INTEGER NOT NULL
);
CREATE INDEX messages_created ON messages (created_at, id);
CREATE INDEX messages_parent ON messages (parent_id, input);
CREATE TABLE events (seq INTEGER PRIMARY KEY, frame TEXT NOT NULL);
INSERT INTO messages (id, role, kind, source, content, client_message_id, parent_id, input, created_at) VALUES
  ('msg_q', 'user', 'text', 'web', 'a question', 'cid-1', NULL, 1, 1),
  ('msg_s', 'system', 'status', 'web', 'pipeline_start', NULL, 'msg_q', 0, 2),
  ('msg_a', 'assistant', 'text', 'web', 'an answer', NULL, 'msg_q', 0, 3);
INSERT INTO events (seq, frame) VALUES (1, '{"seq":1}'), (2, '{"seq":2}');
`;

describe("an object of schema 7", () => {
  it("keeps its messages (without a rowid now, the client's id still unique) and its frames (in batches)", async () => {
    const seen = await runInDurableObject(threadObject(`old-schema-${crypto.randomUUID()}`), (_room: ThreadRoom, state) => {
      const sql = state.storage.sql;
      for (const statement of SCHEMA_7.split(";").map((s) => s.trim()).filter(Boolean)) sql.exec(statement);
      migrate(sql);
      let duplicate = "";
      try {
        sql.exec("INSERT INTO messages (id, role, kind, source, content, client_message_id, input, created_at) VALUES ('msg_x', 'user', 'text', 'web', 'again', 'cid-1', 1, 4)");
      } catch (err) {
        duplicate = String(err);
      }
      return {
        schema: sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'schema'").one().value,
        table: sql.exec<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'messages'").one().sql,
        messages: sql.exec("SELECT id, content, client_message_id, parent_id FROM messages ORDER BY created_at").toArray(),
        duplicate,
        replay: sql.exec("SELECT first_seq, last_seq, frames FROM replay ORDER BY first_seq").toArray(),
        events: sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'events'").toArray().length,
      };
    });
    expect(seen.schema).toBe("10");
    expect(seen.table).toMatch(/WITHOUT ROWID$/);
    expect(seen.messages).toEqual([
      { id: "msg_q", content: "a question", client_message_id: "cid-1", parent_id: null },
      { id: "msg_s", content: "pipeline_start", client_message_id: null, parent_id: "msg_q" },
      { id: "msg_a", content: "an answer", client_message_id: null, parent_id: "msg_q" },
    ]);
    expect(seen.duplicate).toMatch(/UNIQUE constraint failed/);
    // A batch holds its frames as sent: the JSON text of each.
    expect(seen.replay).toEqual([
      { first_seq: 1, last_seq: 1, frames: JSON.stringify(['{"seq":1}']) },
      { first_seq: 2, last_seq: 2, frames: JSON.stringify(['{"seq":2}']) },
    ]);
    expect(seen.events).toBe(0);
  });
});
