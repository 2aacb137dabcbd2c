// The thread object's own SQLite: its working state, local and synchronous. D1 stays the record.
//   meta        threadId, the resident conversation's sessionId
//   inbox       the run queue: messages waiting for (or in) a run, FIFO
//   client_ids  clientMessageId → the stored message, for idempotent posts
//   events      the replay buffer: broadcast frames by seq
//   runs        which seq each run started at (how far back the replay buffer must reach)
//   transcript  the Messages API conversation, a row per turn, grouped in exchanges
import type { Message } from "../db/shapes";
import type { ApiMessage } from "../invoker/types";
import { estimateTokens, type StoredTurn } from "../invoker/conversation";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS inbox (
  pos INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id TEXT NOT NULL UNIQUE,
  message TEXT NOT NULL,
  task_id TEXT,
  run_id TEXT,
  state TEXT NOT NULL DEFAULT 'queued'
);
CREATE TABLE IF NOT EXISTS client_ids (client_message_id TEXT PRIMARY KEY, message TEXT NOT NULL, at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, frame TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (run_id TEXT PRIMARY KEY, first_seq INTEGER NOT NULL, at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS transcript (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  exchange INTEGER NOT NULL,
  message TEXT NOT NULL,
  tokens INTEGER NOT NULL
);
`;

const CLIENT_IDS_KEPT = 2000;

export interface InboxItem {
  pos: number;
  message: Message;
  taskId: string | null;
  runId: string | null;
  state: "queued" | "running";
}

export class RoomStore {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(SCHEMA);
  }

  getMeta(key: string): string | null {
    const row = this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0];
    return row ? row.value : null;
  }

  setMeta(key: string, value: string | null): void {
    if (value === null) this.sql.exec("DELETE FROM meta WHERE key = ?", key);
    else this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", key, value);
  }

  // --- idempotency -------------------------------------------------------------------------

  messageForClientId(clientMessageId: string): Message | null {
    const row = this.sql
      .exec<{ message: string }>("SELECT message FROM client_ids WHERE client_message_id = ?", clientMessageId)
      .toArray()[0];
    return row ? (JSON.parse(row.message) as Message) : null;
  }

  rememberClientId(clientMessageId: string, message: Message): void {
    this.sql.exec(
      "INSERT OR IGNORE INTO client_ids (client_message_id, message, at) VALUES (?, ?, ?)",
      clientMessageId,
      JSON.stringify(message),
      Date.now(),
    );
    this.sql.exec(
      "DELETE FROM client_ids WHERE at < (SELECT at FROM client_ids ORDER BY at DESC LIMIT 1 OFFSET ?)",
      CLIENT_IDS_KEPT,
    );
  }

  // --- run queue ---------------------------------------------------------------------------

  enqueue(message: Message, taskId: string | null = null): void {
    this.sql.exec(
      "INSERT OR IGNORE INTO inbox (message_id, message, task_id) VALUES (?, ?, ?)",
      message.id,
      JSON.stringify(message),
      taskId,
    );
  }

  /** The run in progress if there is one, else the oldest waiting message. */
  head(): InboxItem | null {
    const row = this.sql
      .exec<{ pos: number; message: string; task_id: string | null; run_id: string | null; state: string }>(
        "SELECT pos, message, task_id, run_id, state FROM inbox ORDER BY (state = 'running') DESC, pos LIMIT 1",
      )
      .toArray()[0];
    if (!row) return null;
    return {
      pos: row.pos,
      message: JSON.parse(row.message) as Message,
      taskId: row.task_id,
      runId: row.run_id,
      state: row.state as InboxItem["state"],
    };
  }

  /** Removes a task's iterations that have not started yet; answers how many. */
  dropQueuedForTask(taskId: string): number {
    return this.sql.exec("DELETE FROM inbox WHERE task_id = ? AND state = 'queued'", taskId).rowsWritten;
  }

  markRunning(pos: number, runId: string): void {
    this.sql.exec("UPDATE inbox SET state = 'running', run_id = ? WHERE pos = ?", runId, pos);
  }

  dequeue(pos: number): void {
    this.sql.exec("DELETE FROM inbox WHERE pos = ?", pos);
  }

  queuedCount(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM inbox").one().n;
  }

  // --- replay buffer -----------------------------------------------------------------------

  lastSeq(): number {
    return this.sql.exec<{ seq: number | null }>("SELECT max(seq) AS seq FROM events").one().seq ?? 0;
  }

  appendEvent(seq: number, json: string): void {
    this.sql.exec("INSERT INTO events (seq, frame) VALUES (?, ?)", seq, json);
  }

  eventsSince(seq: number): string[] {
    return this.sql.exec<{ frame: string }>("SELECT frame FROM events WHERE seq > ? ORDER BY seq", seq).toArray().map((r) => r.frame);
  }

  oldestSeq(): number | null {
    return this.sql.exec<{ seq: number | null }>("SELECT min(seq) AS seq FROM events").one().seq;
  }

  /** Records where a run starts and drops frames older than the run before it. */
  startRunEvents(runId: string, firstSeq: number): void {
    this.sql.exec("INSERT OR REPLACE INTO runs (run_id, first_seq, at) VALUES (?, ?, ?)", runId, firstSeq, Date.now());
    const keepFrom = this.sql
      .exec<{ first_seq: number }>("SELECT first_seq FROM runs ORDER BY first_seq DESC LIMIT 1 OFFSET 1")
      .toArray()[0]?.first_seq;
    if (keepFrom !== undefined) {
      this.sql.exec("DELETE FROM events WHERE seq < ?", keepFrom);
      this.sql.exec("DELETE FROM runs WHERE first_seq < ?", keepFrom);
    }
  }

  /** The text a run had streamed to its clients, read back from the replay buffer. */
  streamedText(runId: string): string {
    const first = this.firstSeqOf(runId);
    if (first === null) return "";
    let text = "";
    for (const json of this.eventsSince(first - 1)) {
      const f = JSON.parse(json) as { event: string; data: { runId?: string; type?: string; delta?: string } };
      if (f.event === "pipeline:stream" && f.data.runId === runId && f.data.type === "text") text += f.data.delta ?? "";
    }
    return text;
  }

  firstSeqOf(runId: string): number | null {
    return this.sql.exec<{ first_seq: number }>("SELECT first_seq FROM runs WHERE run_id = ?", runId).toArray()[0]?.first_seq ?? null;
  }

  // --- transcript --------------------------------------------------------------------------

  transcript(): StoredTurn[] {
    return this.sql
      .exec<{ exchange: number; message: string; tokens: number }>("SELECT exchange, message, tokens FROM transcript ORDER BY id")
      .toArray()
      .map((r) => ({ exchange: r.exchange, message: JSON.parse(r.message) as ApiMessage, tokens: r.tokens }));
  }

  /** Stores the turns of one exchange (a user turn and all that answered it), a row per turn. */
  appendExchange(turns: ApiMessage[]): StoredTurn[] {
    const exchange =
      (this.sql.exec<{ n: number | null }>("SELECT max(exchange) AS n FROM transcript").one().n ?? 0) + 1;
    const stored = turns.map((message) => ({ exchange, message, tokens: estimateTokens(message) }));
    for (const t of stored) {
      this.sql.exec("INSERT INTO transcript (exchange, message, tokens) VALUES (?, ?, ?)", exchange, JSON.stringify(t.message), t.tokens);
    }
    return stored;
  }

  hasTranscript(): boolean {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM transcript").one().n > 0;
  }

  clearTranscript(): void {
    this.sql.exec("DELETE FROM transcript");
  }
}
