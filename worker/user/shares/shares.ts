// The user's share links: each a copy of a thread's branch as it was when shared (its files are in R2
// under `shares/<id>/`), read by anyone with the link. A share's id leads to this object (it begins
// with the object's id) and holds 128 random bits after it; revoking one removes it at once.
import type { Share, SharedThread } from "../../protocol";

export type Snapshot = Omit<SharedThread, "share">;

type Row = { id: string; thread_id: string; created_at: number; snapshot: string; files: string };

export class UserShares {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS shares (
      id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, created_at INTEGER NOT NULL, snapshot TEXT NOT NULL, files TEXT NOT NULL
    )`);
  }

  add(id: string, threadId: string, snapshot: Snapshot, files: string[], now: number): void {
    this.sql.exec("INSERT INTO shares VALUES (?, ?, ?, ?, ?)", id, threadId, now, JSON.stringify(snapshot), JSON.stringify(files));
  }

  list(url: (id: string) => string): Share[] {
    return this.sql
      .exec<Row>("SELECT id, thread_id, created_at FROM shares ORDER BY created_at DESC")
      .toArray()
      .map((r) => ({ id: r.id, threadId: r.thread_id, url: url(r.id), createdAt: r.created_at }));
  }

  /** The share as its link shows it, or null (revoked, or never made). */
  read(id: string): SharedThread | null {
    const [r] = this.sql.exec<Row>("SELECT * FROM shares WHERE id = ?", id).toArray();
    return r ? { share: { id: r.id, createdAt: r.created_at }, ...(JSON.parse(r.snapshot) as Snapshot) } : null;
  }

  /** Whether the share holds that file (its own copy in R2). */
  hasFile(id: string, fileId: string): boolean {
    const [r] = this.sql.exec<{ files: string }>("SELECT files FROM shares WHERE id = ?", id).toArray();
    return r ? (JSON.parse(r.files) as string[]).includes(fileId) : false;
  }

  /** Revokes shares (by id, or every share of some threads); the ids that were there. */
  remove(ids: string[]): string[] {
    return ids.filter((id) => this.sql.exec("DELETE FROM shares WHERE id = ? RETURNING id", id).toArray().length > 0);
  }

  ofThreads(threadIds: string[]): string[] {
    return threadIds.flatMap((t) => this.sql.exec<{ id: string }>("SELECT id FROM shares WHERE thread_id = ?", t).toArray().map((r) => r.id));
  }
}
