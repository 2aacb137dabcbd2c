// The user's object's own SQLite: the primary store of what spans the user's threads. Its tables are
// D1's (worker/db/schema.ts) by name and column, for this one user, so Drizzle's table objects and the
// shapes made from them serve both; foreign keys are left out (a thread's rows arrive in any order).
//   threads        the directory: every thread of the user, as its object last reported it
//   messages       text messages, for search (messages_fts, kept by triggers)
//   agent_runs     usage: a row per run (metrics)
//   ledger         today's spend, with reservations near the cap (ledger.ts)
//   context_files  context and memory files
//   attachments    files sent with messages: their bytes, for the quota (the bytes are in R2)
//   tasks          delegated tasks
//   projects       projects, and project_files (their bytes in R2, under the storage quota)
//   schedules      the user's schedules, as their threads report them (schedules.ts; a thread fires its own)
//   outbox         rows for D1 (lib/outbox.ts)
//   meta           the import from D1, once
const TABLES = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
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
CREATE TABLE IF NOT EXISTS agent_runs (
  id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, owner_id TEXT NOT NULL, task_id TEXT, model TEXT NOT NULL,
  input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens INTEGER NOT NULL DEFAULT 0, cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0, duration_ms INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL, started_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_runs_started ON agent_runs (started_at);
CREATE INDEX IF NOT EXISTS agent_runs_thread ON agent_runs (thread_id, started_at);
CREATE TABLE IF NOT EXISTS context_files (
  owner_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL, bytes INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  PRIMARY KEY (owner_id, path)
);
CREATE TABLE IF NOT EXISTS attachments (
  id TEXT PRIMARY KEY, owner_id TEXT NOT NULL, thread_id TEXT NOT NULL, name TEXT NOT NULL, media_type TEXT NOT NULL,
  bytes INTEGER NOT NULL, r2_key TEXT NOT NULL, created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS attachments_thread ON attachments (thread_id);
CREATE TABLE IF NOT EXISTS tasks (
  id TEXT PRIMARY KEY, owner_id TEXT NOT NULL, thread_id TEXT NOT NULL, parent_thread_id TEXT,
  status TEXT NOT NULL DEFAULT 'pending', prompt TEXT NOT NULL, result TEXT, model TEXT, depth INTEGER NOT NULL DEFAULT 1,
  max_iterations INTEGER NOT NULL, current_iteration INTEGER NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0,
  verdict TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tasks_thread ON tasks (thread_id);
CREATE INDEX IF NOT EXISTS tasks_parent ON tasks (parent_thread_id, status);
CREATE INDEX IF NOT EXISTS tasks_created ON tasks (created_at);
`;

export function migrate(sql: SqlStorage): void {
  sql.exec(TABLES);
  // Projects came after the directory: an object from before has its threads without the column.
  if (sql.exec("SELECT 1 FROM pragma_table_info('threads') WHERE name = 'project_id'").toArray().length === 0) {
    sql.exec("ALTER TABLE threads ADD COLUMN project_id TEXT");
  }
  sql.exec(`CREATE TABLE IF NOT EXISTS projects (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, instructions TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
  )`);
  sql.exec(`CREATE TABLE IF NOT EXISTS project_files (
    id TEXT PRIMARY KEY, project_id TEXT NOT NULL, name TEXT NOT NULL, media_type TEXT NOT NULL, bytes INTEGER NOT NULL,
    r2_key TEXT NOT NULL, created_at INTEGER NOT NULL
  )`);
}
