// Which of the user's threads have tool calls waiting for their approval (the sidebar's badge), as the
// threads report them: the list answers them with each thread.
import type { PendingApproval, Thread } from "../../../protocol";

export class WaitingCalls {
  constructor(private readonly sql: SqlStorage) {}

  put(threadId: string, pending: PendingApproval[]): void {
    if (pending.length) this.sql.exec("INSERT OR REPLACE INTO waiting_calls VALUES (?, ?)", threadId, JSON.stringify(pending));
    else this.sql.exec("DELETE FROM waiting_calls WHERE thread_id = ?", threadId);
  }

  /** The threads, those with calls waiting marked with them. */
  mark(threads: Thread[]): Thread[] {
    const rows = this.sql.exec<{ thread_id: string; pending: string }>("SELECT * FROM waiting_calls").toArray();
    if (!rows.length) return threads;
    const byThread = new Map(rows.map((r) => [r.thread_id, JSON.parse(r.pending) as PendingApproval[]]));
    return threads.map((t) => (byThread.has(t.id) ? { ...t, pendingApprovals: byThread.get(t.id) } : t));
  }

  forget(threadIds: string[]): void {
    for (const id of threadIds) this.sql.exec("DELETE FROM waiting_calls WHERE thread_id = ?", id);
  }
}
