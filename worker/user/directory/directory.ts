// The user's thread directory: every thread, as its object last reported it. The list pages by the
// last row's (lastActivity, id): stable under ties and under threads reported meanwhile.
import { and, desc, eq, gt, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import type { ThreadStatus } from "../../protocol";
import { attachments, messages, tasks, threads, type ThreadRow } from "../db/schema";
import type { UserDb } from "./db";

export function encodeCursor(row: Pick<ThreadRow, "lastActivity" | "id">): string {
  return btoa(`${row.lastActivity}:${row.id}`).replace(/=+$/, "");
}

export function decodeCursor(cursor: string): { lastActivity: number; id: string } | null {
  try {
    const [t, id] = atob(cursor).split(":");
    const lastActivity = Number(t);
    return Number.isFinite(lastActivity) && id ? { lastActivity, id } : null;
  } catch {
    return null;
  }
}

export interface ListOptions {
  status?: ThreadStatus;
  limit: number;
  cursor?: { lastActivity: number; id: string };
}

export class Directory {
  constructor(private readonly db: UserDb) {}

  list(opts: ListOptions): { rows: ThreadRow[]; nextCursor?: string } {
    const where: (SQL | undefined)[] = [];
    if (opts.status) where.push(eq(threads.status, opts.status));
    else where.push(inArray(threads.status, ["open", "active", "completed", "failed"]));
    if (opts.cursor) {
      const { lastActivity, id } = opts.cursor;
      where.push(or(lt(threads.lastActivity, lastActivity), and(eq(threads.lastActivity, lastActivity), lt(threads.id, id))));
    }
    const rows = this.db
      .select()
      .from(threads)
      .where(and(...where))
      .orderBy(desc(threads.lastActivity), desc(threads.id))
      .limit(opts.limit + 1)
      .all();
    const more = rows.length > opts.limit;
    const page = more ? rows.slice(0, opts.limit) : rows;
    return { rows: page, nextCursor: more ? encodeCursor(page[page.length - 1]) : undefined };
  }

  has(id: string): boolean {
    return this.db.select({ id: threads.id }).from(threads).where(eq(threads.id, id)).get() !== undefined;
  }

  /** The thread and every task thread below it. */
  family(id: string): string[] {
    const rows = this.db.all<{ id: string }>(sql`
      WITH RECURSIVE family(id) AS (
        SELECT ${id} UNION SELECT t.id FROM ${threads} t JOIN family f ON t.parent_thread_id = f.id
      ) SELECT id FROM family`);
    return rows.map((r) => r.id);
  }

  /** Threads that ran since `since`: the ones whose objects may hold caches of the user's files. */
  activeSince(since: number): string[] {
    return this.db.select({ id: threads.id }).from(threads).where(gt(threads.lastActivity, since)).limit(1000).all().map((r) => r.id);
  }

  /** The threads in a project. */
  inProject(projectId: string): string[] {
    return this.db.select({ id: threads.id }).from(threads).where(eq(threads.projectId, projectId)).all().map((r) => r.id);
  }

  /** A deleted project's threads leave it here at once (their objects are told too); their ids. */
  leaveProject(projectId: string): string[] {
    const ids = this.inProject(projectId);
    this.db.update(threads).set({ projectId: null }).where(eq(threads.projectId, projectId)).run();
    return ids;
  }

  /** A thread as its object reports it: the newer copy wins (a report retried late changes nothing). */
  upsert(row: typeof threads.$inferInsert): void {
    this.db
      .insert(threads)
      .values(row)
      .onConflictDoUpdate({ target: threads.id, set: row, setWhere: sql`excluded.updated_at >= ${threads.updatedAt}` })
      .run();
  }

  /** Deleted threads: their rows, messages, files and tasks go; their usage stays (it was spent). */
  forget(ids: string[]): void {
    if (ids.length === 0) return;
    this.db.delete(messages).where(inArray(messages.threadId, ids)).run();
    this.db.delete(attachments).where(inArray(attachments.threadId, ids)).run();
    this.db.delete(tasks).where(inArray(tasks.threadId, ids)).run();
    this.db.delete(threads).where(inArray(threads.id, ids)).run();
  }
}
