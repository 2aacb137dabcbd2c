// Which API thread a client's conversation continues. Clients of the compatible endpoints send the whole
// conversation each turn; each API thread keeps the fingerprint of its conversation as its last answer
// left it (worker/http/v1/conversation-key.ts makes them), with the message that answer followed, so a
// request whose earlier messages have that fingerprint continues that thread, unless the thread moved
// on since (a person wrote in it in the app: its head is another message then).

export interface Continuation {
  threadId: string;
  /** The user message the thread's last API answer followed: the thread must still be there. */
  headId: string;
}

export class ApiConversations {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS api_conversations (
      thread_id TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, head_id TEXT NOT NULL, at INTEGER NOT NULL
    )`);
    sql.exec("CREATE INDEX IF NOT EXISTS api_conversations_fingerprint ON api_conversations (fingerprint, at)");
  }

  /** The thread whose conversation has this fingerprint (the latest, should two have it), or null. */
  find(fingerprint: string): Continuation | null {
    const row = this.sql
      .exec<{ thread_id: string; head_id: string }>("SELECT thread_id, head_id FROM api_conversations WHERE fingerprint = ? ORDER BY at DESC LIMIT 1", fingerprint)
      .toArray()[0];
    return row ? { threadId: row.thread_id, headId: row.head_id } : null;
  }

  remember(threadId: string, fingerprint: string, headId: string, now = Date.now()): void {
    this.sql.exec("INSERT OR REPLACE INTO api_conversations (thread_id, fingerprint, head_id, at) VALUES (?, ?, ?, ?)", threadId, fingerprint, headId, now);
  }

  forgetThreads(threadIds: string[]): void {
    this.sql.exec("DELETE FROM api_conversations WHERE thread_id IN (SELECT value FROM json_each(?))", JSON.stringify(threadIds));
  }
}
