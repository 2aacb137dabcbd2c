// The user's share links: each a copy of a thread's branch as it was when shared (its files are in R2
// under `shares/<id>/`, and its readers' copy too: share-copy.ts), read by anyone with the link. This
// object keeps the list and the snapshot a copy is made from; a share's id leads to it (it begins with
// the object's id) and holds 128 random bits after it; revoking one removes it at once.
import type { Share, SharedThread } from "../../../protocol";
import { markRevoked } from "./share-copy";
import { deleteSharedFiles, shareUrl } from "./share-ids";

export type Snapshot = Omit<SharedThread, "share">;

type Row = { id: string; thread_id: string; created_at: number; snapshot: string; files: string };

export class UserShares {
  constructor(
    private readonly sql: SqlStorage,
    /** Where the shares' copies of their files are. */
    private readonly files: R2Bucket,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS shares (
      id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, created_at INTEGER NOT NULL, snapshot TEXT NOT NULL, files TEXT NOT NULL
    )`);
  }

  add(id: string, threadId: string, snapshot: Snapshot, files: string[], now: number): void {
    this.sql.exec("INSERT INTO shares VALUES (?, ?, ?, ?, ?)", id, threadId, now, JSON.stringify(snapshot), JSON.stringify(files));
  }

  /** Newest first, each with its link on `origin`. */
  list(origin: string): Share[] {
    return this.sql
      .exec<Row>("SELECT id, thread_id, created_at FROM shares ORDER BY created_at DESC")
      .toArray()
      .map((r) => ({ id: r.id, threadId: r.thread_id, url: shareUrl(origin, r.id), createdAt: r.created_at }));
  }

  /** The share as its link shows it, or null (revoked, or never made). */
  read(id: string): SharedThread | null {
    const [r] = this.sql.exec<Row>("SELECT * FROM shares WHERE id = ?", id).toArray();
    return r ? { share: { id: r.id, createdAt: r.created_at }, ...(JSON.parse(r.snapshot) as Snapshot) } : null;
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
