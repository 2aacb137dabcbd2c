// The bytes of the files a user has sent with messages (the bytes themselves are in R2), against their
// storage quota (which projects' files count against too): charged before the upload is stored, in one step (one writer), so uploads made at once
// cannot pass it together; released if the upload fails, and with a deleted thread.
import { eq, sql } from "drizzle-orm";
import { attachments } from "../db/schema";
import type { UserDb } from "./db";

export type StoredFile = typeof attachments.$inferInsert;

export class StoredFiles {
  constructor(private readonly db: UserDb) {}

  /** Every byte the user keeps in R2: attachments and projects' files. */
  used(): number {
    const sent = this.db.select({ bytes: sql<number>`coalesce(sum(${attachments.bytes}), 0)` }).from(attachments).get()!.bytes;
    return sent + this.db.get<{ n: number }>(sql`SELECT coalesce(sum(bytes), 0) AS n FROM project_files`).n;
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
}
