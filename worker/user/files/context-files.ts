// The user's context files (and the assistant's memory files under memories/), in the user's object:
// one writer, so a write is checked against the quota and made in one step, and writes made at once
// cannot pass it together. They are the user's alone: nothing of them goes to D1.
import { asc, eq, sql } from "drizzle-orm";
import type { ContextFile, ContextFileInfo } from "../../../protocol";
import { contextFiles } from "../../db/schema";
import type { ContextQuota } from "../../lib/context-quota";
import { inList, type UserDb, type UserStore } from "../store";

const TABLE = `CREATE TABLE IF NOT EXISTS context_files (
  owner_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL, bytes INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  PRIMARY KEY (owner_id, path)
)`;

const info = { path: contextFiles.path, bytes: contextFiles.bytes, updatedAt: contextFiles.updatedAt };
const whole = { ...info, content: contextFiles.content };

export class ContextFiles {
  private readonly db: UserDb;

  constructor(
    store: UserStore,
    private readonly ownerId: () => string,
  ) {
    store.sql.exec(TABLE);
    this.db = store.db;
  }

  list(): ContextFileInfo[] {
    return this.db.select(info).from(contextFiles).orderBy(asc(contextFiles.path)).all();
  }

  /** Every file with its content (step 0's input), by path. */
  all(): ContextFile[] {
    return this.db.select(whole).from(contextFiles).orderBy(asc(contextFiles.path)).all();
  }

  /**
   * The files whose path begins with `prefix`, exactly: LIKE would ignore case and take `_` for any
   * character, and so reach files in another folder.
   */
  under(prefix: string): { path: string; bytes: number }[] {
    return this.db
      .select({ path: contextFiles.path, bytes: contextFiles.bytes })
      .from(contextFiles)
      .where(sql`substr(${contextFiles.path}, 1, length(${prefix})) = ${prefix}`)
      .orderBy(asc(contextFiles.path))
      .all();
  }

  get(path: string): ContextFile | null {
    return this.db.select(whole).from(contextFiles).where(eq(contextFiles.path, path)).get() ?? null;
  }

  /** Writes the file if the user's files stay within `quota` with it; null (nothing written) if not. */
  put(path: string, content: string, quota: ContextQuota, now = Date.now()): ContextFile | null {
    const bytes = new TextEncoder().encode(content).length;
    const others = this.db
      .select({ files: sql<number>`count(*)`, bytes: sql<number>`coalesce(sum(${contextFiles.bytes}), 0)` })
      .from(contextFiles)
      .where(sql`${contextFiles.path} <> ${path}`)
      .get()!;
    if (others.files >= quota.files || others.bytes + bytes > quota.bytes) return null;
    const row = { ownerId: this.ownerId(), path, content, bytes, updatedAt: now };
    this.db.insert(contextFiles).values(row).onConflictDoUpdate({ target: [contextFiles.ownerId, contextFiles.path], set: row }).run();
    return { path, content, bytes, updatedAt: now };
  }

  /** Removes the files named; the paths that were there. */
  remove(paths: string[]): string[] {
    if (paths.length === 0) return [];
    return this.db.delete(contextFiles).where(inList(contextFiles.path, paths)).returning({ path: contextFiles.path }).all().map((g) => g.path);
  }
}
