// The thread object's own SQLite: the thread's primary store. D1 gets a copy through the outbox.
//   thread    the thread row (one), with its owner
//   messages  every message of every kind; input messages (those a run answers) form the branch tree
//   inbox     the run queue: input messages waiting for (or in) a run, FIFO
//   runs      each run's progress (started, stored, ended), for recovery and replay pruning
//   replay    the replay buffer: broadcast frames by seq, in batches (replay.ts)
//   turns     the Messages API transcript, a row per turn, keyed by the exchange's input message
//   outbox    rows to mirror to D1, one per (table, key), flushed in one batch (lib/outbox.ts)
//   report    rows for the owner's object (directory, search, usage, schedules, waiting calls), the same way
//   cache     step 0's inputs (plugin configs from their copy in R2; context files, project, MCP tools
//             from the owner's object), run costs the owner's object has yet to settle, the window's
//             calibration, with when each was read
//   schedules the thread's schedules (schedules.ts): they drive the alarm
//   artifacts the model's artifacts, and their versions by exchange (artifacts.ts)
//   files     the thread's attachments (their bytes are in R2), so a post resolves its ids locally
//   produced_files  the files its code wrote (their bytes in R2 too): produced-files.ts
//   approvals tool calls waiting for the user's decision, and decided; run_points the runs they hold
//   long_text text longer than a row holds, in parts, for the rows that keep a mark (long-text.ts)
//   tickets   one-use tickets that open a socket without a token in its URL
//   meta      schema version, tombstone

const SCHEMA_VERSION = "10";

// Keyed by id without a rowid, and the client's id indexed only where there is one: a message costs
// three rows written (the row, the time and parent indexes), not five; most are activity, with none.
const MESSAGES_COLUMNS = `
  id TEXT PRIMARY KEY, role TEXT NOT NULL, kind TEXT NOT NULL, source TEXT NOT NULL, content TEXT NOT NULL,
  model TEXT, metadata TEXT NOT NULL DEFAULT '{}', client_message_id TEXT, parent_id TEXT,
  input INTEGER NOT NULL DEFAULT 0, attachments TEXT, created_at INTEGER NOT NULL`;

const TABLES = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS thread (
  id TEXT PRIMARY KEY, owner_id TEXT NOT NULL, source TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL,
  status TEXT NOT NULL, model TEXT NOT NULL, session_id TEXT, parent_thread_id TEXT,
  instructions TEXT NOT NULL DEFAULT '', head_id TEXT, named INTEGER NOT NULL DEFAULT 0,
  last_activity INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (${MESSAGES_COLUMNS}) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS messages_client_id ON messages (client_message_id) WHERE client_message_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS messages_created ON messages (created_at, id);
CREATE INDEX IF NOT EXISTS messages_parent ON messages (parent_id, input);
CREATE TABLE IF NOT EXISTS inbox (
  pos INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT NOT NULL UNIQUE, task_id TEXT, run_id TEXT,
  state TEXT NOT NULL DEFAULT 'queued', restarts INTEGER NOT NULL DEFAULT 0, request_id TEXT, queued_seq INTEGER
);
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, message_id TEXT NOT NULL, first_seq INTEGER NOT NULL, state TEXT NOT NULL,
  outcome TEXT, tool_ran INTEGER NOT NULL DEFAULT 0, at INTEGER NOT NULL, keep_seq INTEGER
);
CREATE TABLE IF NOT EXISTS replay (first_seq INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL, frames TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS turns (
  exchange TEXT NOT NULL, idx INTEGER NOT NULL, message TEXT NOT NULL, tokens INTEGER NOT NULL,
  PRIMARY KEY (exchange, idx)
);
CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, value TEXT NOT NULL, fetched_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tickets (
  ticket TEXT PRIMARY KEY, user_id TEXT NOT NULL, expires_at INTEGER NOT NULL, credential_expires_at INTEGER
);
CREATE TABLE IF NOT EXISTS schedules (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, prompt TEXT NOT NULL, at INTEGER, every INTEGER, cron TEXT,
  timezone TEXT NOT NULL, enabled INTEGER NOT NULL, anchor INTEGER NOT NULL, next_run_at INTEGER,
  last_run_at INTEGER, last_status TEXT, created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS artifacts (
  id TEXT PRIMARY KEY, title TEXT NOT NULL, type TEXT NOT NULL, language TEXT, created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS artifact_versions (
  artifact_id TEXT NOT NULL, version INTEGER NOT NULL, content TEXT NOT NULL, exchange TEXT NOT NULL,
  run_id TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (artifact_id, version)
);
CREATE TABLE IF NOT EXISTS approvals (
  tool_use_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, tool_name TEXT NOT NULL, input TEXT NOT NULL,
  expires_at INTEGER NOT NULL, decision INTEGER, reason TEXT
);
CREATE TABLE IF NOT EXISTS run_points (run_id TEXT PRIMARY KEY, point TEXT NOT NULL, prompt TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS long_text (key TEXT NOT NULL, n INTEGER NOT NULL, part TEXT NOT NULL, PRIMARY KEY (key, n));
CREATE TABLE IF NOT EXISTS files (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, media_type TEXT NOT NULL, bytes INTEGER NOT NULL, r2_key TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS produced_files (
  id TEXT PRIMARY KEY, run_id TEXT NOT NULL, name TEXT NOT NULL, media_type TEXT NOT NULL, bytes INTEGER NOT NULL,
  r2_key TEXT NOT NULL, created_at INTEGER NOT NULL
);
`;

/**
 * Creates what is missing, first moving an object of the first version (D1 was the primary store
 * then) aside: its replay buffer stays, so clients' seq goes on; the rest is rebuilt from D1.
 */
export function migrate(sql: SqlStorage): void {
  const version = tableExists(sql, "meta")
    ? sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'schema'").toArray()[0]?.value
    : undefined;
  if (version === undefined && tableExists(sql, "transcript")) {
    for (const old of ["transcript", "client_ids", "inbox", "runs", "meta"]) sql.exec(`DROP TABLE IF EXISTS ${old}`);
  }
  // Version 9: messages without a rowid (TABLES makes them so; an older table is rebuilt first).
  if (version !== undefined && Number(version) < 9 && tableExists(sql, "messages")) rebuildMessages(sql);
  sql.exec(TABLES);
  // Version 3: the request that queued an input, for its run's log lines.
  if (!columnExists(sql, "inbox", "request_id")) sql.exec("ALTER TABLE inbox ADD COLUMN request_id TEXT");
  // Version 4: where a run's replay begins, its message's chat:message (kept with the run's frames).
  if (!columnExists(sql, "inbox", "queued_seq")) sql.exec("ALTER TABLE inbox ADD COLUMN queued_seq INTEGER");
  if (!columnExists(sql, "runs", "keep_seq")) sql.exec("ALTER TABLE runs ADD COLUMN keep_seq INTEGER");
  // Version 5: the user's timezone, as their browser sent it with the thread (schedules).
  if (!columnExists(sql, "thread", "timezone")) sql.exec("ALTER TABLE thread ADD COLUMN timezone TEXT");
  // Version 6: the project the thread is in.
  if (!columnExists(sql, "thread", "project_id")) sql.exec("ALTER TABLE thread ADD COLUMN project_id TEXT");
  // Version 7: the MCP servers the thread does not offer (their ids, JSON); approvals, run points and
  // long text (TABLES).
  if (!columnExists(sql, "thread", "mcp_off")) sql.exec("ALTER TABLE thread ADD COLUMN mcp_off TEXT");
  // Version 8: the replay buffer in batches; the frames of before, a batch each.
  if (tableExists(sql, "events")) {
    sql.exec("INSERT OR IGNORE INTO replay (first_seq, last_seq, frames) SELECT seq, seq, json_array(frame) FROM events");
    sql.exec("DROP TABLE events");
  }
  // Version 10: the thread's code execution switch, and the container its runs reuse (JSON).
  if (!columnExists(sql, "thread", "code_execution")) sql.exec("ALTER TABLE thread ADD COLUMN code_execution INTEGER");
  if (!columnExists(sql, "thread", "container")) sql.exec("ALTER TABLE thread ADD COLUMN container TEXT");
  if (version !== SCHEMA_VERSION) sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)", SCHEMA_VERSION);
}

function rebuildMessages(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE messages_v9 (${MESSAGES_COLUMNS}) WITHOUT ROWID`);
  sql.exec("INSERT INTO messages_v9 SELECT id, role, kind, source, content, model, metadata, client_message_id, parent_id, input, attachments, created_at FROM messages");
  sql.exec("DROP TABLE messages");
  sql.exec("ALTER TABLE messages_v9 RENAME TO messages");
}

function columnExists(sql: SqlStorage, table: string, column: string): boolean {
  return sql.exec("SELECT 1 FROM pragma_table_info(?) WHERE name = ?", table, column).toArray().length > 0;
}

function tableExists(sql: SqlStorage, name: string): boolean {
  return sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray().length > 0;
}
