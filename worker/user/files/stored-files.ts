// The bytes of the files a user has sent with messages (the bytes themselves are in R2), against their
// storage quota, which their projects' files count against too: charged before the upload is stored,
// in one step (one writer), so uploads made at once cannot pass it together; released if the upload
// fails, and with a deleted thread.
import { eq, sql } from "drizzle-orm";
import { attachments } from "../../db/schema";
import { inList, type UserDb, type UserStore } from "../store";

const TABLES = `
CREATE TABLE IF NOT EXISTS attachments (
  id TEXT PRIMARY KEY, owner_id TEXT NOT NULL, thread_id TEXT NOT NULL, name TEXT NOT NULL, media_type TEXT NOT NULL,
  bytes INTEGER NOT NULL, r2_key TEXT NOT NULL, created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS attachments_thread ON attachments (thread_id);
`;

export type StoredFile = typeof attachments.$inferInsert;

export class StoredFiles {
  private readonly db: UserDb;

  constructor(
    store: UserStore,
    /** The bytes of the user's other files under the same quota (their projects'). */
    private readonly otherBytes: () => number,
  ) {
    store.sql.exec(TABLES);
    this.db = store.db;
  }

  /** Every byte the user keeps in R2: attachments and projects' files. */
  used(): number {
    const sent = this.db.select({ bytes: sql<number>`coalesce(sum(${attachments.bytes}), 0)` }).from(attachments).get()!.bytes;
    return sent + this.otherBytes();
  }

  /** Keeps the file's record if the user's files stay within `quota` bytes with it; false if not. */
  charge(file: StoredFile, quota: number): boolean {
    if (this.used() + file.bytes > quota) return false;
    this.db.insert(attachments).values(file).onConflictDoNothing().run();
    return true;
  }

  release(id: string): void {
    this.db.delete(attachments).where(eq(attachments.id, id)).run();
  }

  /** The ids of the files sent in these threads. */
  ofThreads(threadIds: string[]): string[] {
    if (threadIds.length === 0) return [];
    return this.db.select({ id: attachments.id }).from(attachments).where(inList(attachments.threadId, threadIds)).all().map((r) => r.id);
  }

  /** Deleted threads' files leave the quota (their bytes are deleted from R2 by the caller). */
  forgetThreads(threadIds: string[]): void {
    if (threadIds.length) this.db.delete(attachments).where(inList(attachments.threadId, threadIds)).run();
  }
}
