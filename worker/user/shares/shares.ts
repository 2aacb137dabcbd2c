// The user's share links: each a copy of a thread's branch as it was when shared (its readers' copy in
// R2, share-copy.ts, with pointers to the thread's files: share-files.ts), read by anyone with the link.
// This object keeps the list, bounded per thread and per user, and the bytes each copy takes, which
// count against the user's storage quota; revoking a share removes it at once and frees its bytes.
// A share made before the readers' copies kept its snapshot here; those rows are still read.
import type { Share, SharedThread } from "../../../protocol";
import { addColumn } from "../store";
import { markRevoked } from "./share-copy";
import { deleteSharedFiles, shareUrl } from "./share-ids";

/** What one share may take: how many a thread and a user may have, and the user's storage quota. */
export interface ShareBounds {
  perThread: number;
  perUser: number;
  quotaBytes: number;
}

/** Why a share was not made: its thread's or its user's count, or the storage quota. */
export type ShareRefusal = "thread" | "user" | "quota";

type Row = { id: string; thread_id: string; created_at: number; snapshot: string; files: string; bytes: number };

export class UserShares {
  constructor(
    private readonly sql: SqlStorage,
    /** Where the shares' copies are. */
    private readonly files: R2Bucket,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS shares (
      id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, created_at INTEGER NOT NULL, snapshot TEXT NOT NULL, files TEXT NOT NULL
    )`);
    addColumn(sql, "shares", "bytes", "INTEGER NOT NULL DEFAULT 0");
  }

  /**
   * Lists a share of `bytes` (its readers' copy) before its copy is written, if the bounds allow it
   * with the user's files' `used` bytes (these shares' among them): checked and kept in one step, so
   * shares made at once cannot pass them together. Null: kept.
   */
  reserve(share: { id: string; threadId: string; createdAt: number }, bytes: number, bounds: ShareBounds, used: number): ShareRefusal | null {
    const count = (where: string, ...bind: string[]) => this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM shares ${where}`, ...bind).one().n;
    if (count("WHERE thread_id = ?", share.threadId) >= bounds.perThread) return "thread";
    if (count("") >= bounds.perUser) return "user";
    if (used + bytes > bounds.quotaBytes) return "quota";
    this.sql.exec("INSERT INTO shares (id, thread_id, created_at, snapshot, files, bytes) VALUES (?, ?, ?, '', '[]', ?)", share.id, share.threadId, share.createdAt, bytes);
    return null;
  }

  /** A reserved share whose copy could not be written: gone without a trace (its link was never given). */
  unreserve(id: string): void {
    this.sql.exec("DELETE FROM shares WHERE id = ?", id);
  }

  /** The bytes the shares' copies take in R2. */
  bytes(): number {
    return this.sql.exec<{ n: number }>("SELECT coalesce(sum(bytes), 0) AS n FROM shares").one().n;
  }

  /** Newest first, each with its link on `origin`. */
  list(origin: string): Share[] {
    return this.sql
      .exec<Row>("SELECT id, thread_id, created_at FROM shares ORDER BY created_at DESC")
      .toArray()
      .map((r) => ({ id: r.id, threadId: r.thread_id, url: shareUrl(origin, r.id), createdAt: r.created_at }));
  }

  /** A share made before the readers' copies, as its link shows it; null for any other. */
  read(id: string): SharedThread | null {
    const [r] = this.sql.exec<Row>("SELECT * FROM shares WHERE id = ?", id).toArray();
    return r?.snapshot ? { share: { id: r.id, createdAt: r.created_at }, ...(JSON.parse(r.snapshot) as Omit<SharedThread, "share">) } : null;
  }

  /** Revokes a share: its link is 404 from now on, its files gone. False: no such share. */
  async revoke(id: string): Promise<boolean> {
    return (await this.remove([id])).length > 0;
  }

  /** Deleted threads' shares are revoked. */
  async forgetThreads(threadIds: string[]): Promise<void> {
    await this.remove(threadIds.flatMap((t) => this.sql.exec<{ id: string }>("SELECT id FROM shares WHERE thread_id = ?", t).toArray().map((r) => r.id)));
  }

  /** The ids that were there: their rows go at once, their files' copies after, and their readers' copy becomes the revoked mark. */
  private async remove(ids: string[]): Promise<string[]> {
    const gone = ids.filter((id) => this.sql.exec("DELETE FROM shares WHERE id = ? RETURNING id", id).toArray().length > 0);
    for (const id of gone) {
      await deleteSharedFiles(this.files, id);
      await markRevoked(this.files, id);
    }
    return gone;
  }
}
