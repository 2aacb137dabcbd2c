// The directory's tables in the user's object: every thread of the user as its object last reported
// it, their text messages with the full-text index over them (kept by triggers), and the calls waiting
// for the user's approval. Foreign keys are left out: a thread's rows arrive in any order.
import { addColumn } from "../store";

const TABLES = `
CREATE TABLE IF NOT EXISTS threads (
  id TEXT PRIMARY KEY, owner_id TEXT NOT NULL, source TEXT NOT NULL DEFAULT 'web', source_id TEXT, name TEXT NOT NULL,
  kind TEXT NOT NULL DEFAULT 'general', status TEXT NOT NULL DEFAULT 'open', session_id TEXT, model TEXT NOT NULL,
  instructions TEXT NOT NULL DEFAULT '', head_id TEXT, parent_thread_id TEXT, project_id TEXT, last_activity INTEGER NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS threads_activity ON threads (last_activity, id);
CREATE INDEX IF NOT EXISTS threads_parent ON threads (parent_thread_id);
CREATE TABLE IF NOT EXISTS messages (
  id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, role TEXT NOT NULL, kind TEXT NOT NULL DEFAULT 'text',
  source TEXT NOT NULL DEFAULT 'web', content TEXT NOT NULL, model TEXT, metadata TEXT, client_message_id TEXT,
  parent_id TEXT, created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_thread ON messages (thread_id);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
  content, message_id UNINDEXED, thread_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages WHEN new.kind = 'text' BEGIN
  INSERT INTO messages_fts (rowid, content, message_id, thread_id) VALUES (new.rowid, new.content, new.id, new.thread_id);
END;
CREATE TRIGGER IF NOT EXISTS messages_fts_update AFTER UPDATE OF content, kind ON messages BEGIN
  DELETE FROM messages_fts WHERE rowid = old.rowid;
  INSERT INTO messages_fts (rowid, content, message_id, thread_id) SELECT new.rowid, new.content, new.id, new.thread_id WHERE new.kind = 'text';
END;
CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages BEGIN
  DELETE FROM messages_fts WHERE rowid = old.rowid;
END;
CREATE TABLE IF NOT EXISTS waiting_calls (thread_id TEXT PRIMARY KEY, pending TEXT NOT NULL);
`;

export function createDirectoryTables(sql: SqlStorage): void {
  sql.exec(TABLES);
  // Projects came after the directory: an object from before has its threads without the column.
  addColumn(sql, "threads", "project_id", "TEXT");
}
