// The thread list and the queries across threads (D1). A thread's own rows are its object's; these
// read the copies the objects mirror here.
import { and, desc, eq, gt, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import type { ThreadStatus } from "../../protocol";
import type { Db } from "./client";
import { threads, type ThreadRow } from "./schema";

// The cursor is the last row's (lastActivity, id): stable under ties and under concurrent inserts.
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

export async function listThreads(
  db: Db,
  ownerId: string,
  opts: { status?: ThreadStatus; limit: number; cursor?: { lastActivity: number; id: string } },
): Promise<{ rows: ThreadRow[]; nextCursor?: string }> {
  const where: (SQL | undefined)[] = [eq(threads.ownerId, ownerId)];
  if (opts.status) where.push(eq(threads.status, opts.status));
  else where.push(inArray(threads.status, ["open", "active", "completed", "failed"]));
  if (opts.cursor) {
    const { lastActivity, id } = opts.cursor;
    where.push(or(lt(threads.lastActivity, lastActivity), and(eq(threads.lastActivity, lastActivity), lt(threads.id, id))));
  }
  const rows = await db
    .select()
    .from(threads)
    .where(and(...where))
    .orderBy(desc(threads.lastActivity), desc(threads.id))
    .limit(opts.limit + 1);
  const more = rows.length > opts.limit;
  const page = more ? rows.slice(0, opts.limit) : rows;
  return { rows: page, nextCursor: more ? encodeCursor(page[page.length - 1]) : undefined };
}

/** The thread and every task thread below it, in one query. */
export async function threadFamily(db: Db, id: string): Promise<string[]> {
  const rows = await db.all<{ id: string }>(sql`
    WITH RECURSIVE family(id) AS (
      SELECT ${id} UNION SELECT t.id FROM ${threads} t JOIN family f ON t.parent_thread_id = f.id
    ) SELECT id FROM family`);
  return rows.map((r) => r.id);
}

/** Threads that ran recently (of one owner, or of everyone): the ones whose objects hold caches. */
export async function activeThreads(db: Db, since: number, ownerId?: string): Promise<string[]> {
  const where = [gt(threads.lastActivity, since), ...(ownerId ? [eq(threads.ownerId, ownerId)] : [])];
  const rows = await db.select({ id: threads.id }).from(threads).where(and(...where)).limit(1000);
  return rows.map((r) => r.id);
}
