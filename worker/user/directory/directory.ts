// The user's thread directory: every thread, as its object last reported it, with the calls each has
// waiting for the user (the sidebar's badge), and search over their text messages. The list pages by
// the last row's (lastActivity, id): stable under ties and under threads reported meanwhile.
import { and, desc, eq, gt, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import type { PendingApproval, SearchResult, Thread, ThreadStatus } from "../../../protocol";
import { messages, threads } from "../../db/schema";
import { toThread } from "../../db/shapes";
import { upsertRow } from "../../db/upsert";
import { inList, type UserDb, type UserStore } from "../store";
import { encodeCursor, type Cursor } from "./cursor";
import { createDirectoryTables } from "./schema";
import { searchMessages } from "./search";
import { WaitingCalls } from "./waiting-calls";

export interface ListOptions {
  status?: ThreadStatus;
  limit: number;
  cursor?: Cursor;
}

export class Directory {
  private readonly db: UserDb;
  private readonly sql: SqlStorage;
  private readonly waiting: WaitingCalls;

  constructor(store: UserStore) {
    createDirectoryTables(store.sql);
    this.db = store.db;
    this.sql = store.sql;
    this.waiting = new WaitingCalls(store.sql);
  }

  /** A page of the list, newest activity first; threads with calls waiting are marked with them. */
  list(opts: ListOptions): { threads: Thread[]; nextCursor?: string } {
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
    const page = rows.slice(0, opts.limit);
    const marked = this.waiting.mark(page.map(toThread));
    return rows.length > opts.limit ? { threads: marked, nextCursor: encodeCursor(page[page.length - 1]) } : { threads: marked };
  }

  /** The thread and every task thread below it, or null for a thread not in the directory. */
  family(id: string): string[] | null {
    if (!this.db.select({ id: threads.id }).from(threads).where(eq(threads.id, id)).get()) return null;
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
    upsertRow(this.sql, threads, row, [threads.id], `excluded.updated_at >= "threads"."updated_at"`);
  }

  /** A thread's text message as it reports it (a newer copy replaces it), for search. */
  index(row: typeof messages.$inferInsert): void {
    upsertRow(this.sql, messages, row, [messages.id]);
  }

  /** The calls a thread has waiting for the user, as it reports them. */
  waits(threadId: string, pending: PendingApproval[]): void {
    this.waiting.put(threadId, pending);
  }

  search(q: string, limit: number, projectId?: string): SearchResult[] {
    return searchMessages(this.db, q, limit, projectId);
  }

  /** Deleted threads: their rows, messages and waiting calls go. */
  forget(ids: string[]): void {
    if (ids.length === 0) return;
    this.db.delete(messages).where(inList(messages.threadId, ids)).run();
    this.db.delete(threads).where(inList(threads.id, ids)).run();
    this.waiting.forget(ids);
  }
}
