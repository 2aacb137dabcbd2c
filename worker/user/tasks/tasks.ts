// The user's delegated tasks. The delegation plugin makes and moves them from the two threads' objects
// (parent and child); they live here, so a task's run reads its task without D1, and a new task is
// checked against its parent's tasks in progress and the user's tasks today in the same step it is made.
import { and, desc, eq, gte, inArray, or, sql, type SQL } from "drizzle-orm";
import type { Task, TaskStatus } from "../../../protocol";
import { tasks, type TaskRow } from "../../db/schema";
import { toTask } from "../../db/shapes";
import { utcDayStart } from "../../lib/time";
import { inList, type UserDb, type UserStore } from "../store";

const TABLES = `
CREATE TABLE IF NOT EXISTS tasks (
  id TEXT PRIMARY KEY, owner_id TEXT NOT NULL, thread_id TEXT NOT NULL, parent_thread_id TEXT,
  status TEXT NOT NULL DEFAULT 'pending', prompt TEXT NOT NULL, result TEXT, model TEXT, depth INTEGER NOT NULL DEFAULT 1,
  max_iterations INTEGER NOT NULL, current_iteration INTEGER NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0,
  verdict TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tasks_thread ON tasks (thread_id);
CREATE INDEX IF NOT EXISTS tasks_parent ON tasks (parent_thread_id, status);
CREATE INDEX IF NOT EXISTS tasks_created ON tasks (created_at);
`;

const ACTIVE: TaskStatus[] = ["pending", "running", "evaluating"];

export interface TaskBounds {
  /** Tasks in progress one thread may have. */
  perThread: number;
  /** Tasks a user may start a day (UTC). */
  perDay: number;
}

export type TaskRefusal = "thread" | "day";

export class UserTasks {
  private readonly db: UserDb;

  constructor(store: UserStore) {
    store.sql.exec(TABLES);
    this.db = store.db;
  }

  /** Keeps the task unless its parent has `perThread` tasks in progress or the user `perDay` today. */
  create(row: TaskRow, bounds: TaskBounds, now = Date.now()): { ok: true } | { ok: false; bound: TaskRefusal } {
    const count = (where: SQL | undefined) => this.db.select({ n: sql<number>`count(*)` }).from(tasks).where(where).get()!.n;
    if (row.parentThreadId && count(and(eq(tasks.parentThreadId, row.parentThreadId), inArray(tasks.status, ACTIVE))) >= bounds.perThread) {
      return { ok: false, bound: "thread" };
    }
    if (count(gte(tasks.createdAt, utcDayStart(now))) >= bounds.perDay) return { ok: false, bound: "day" };
    this.db.insert(tasks).values(row).run();
    return { ok: true };
  }

  get(id: string): TaskRow | null {
    return this.db.select().from(tasks).where(eq(tasks.id, id)).get() ?? null;
  }

  /** The task a thread was made for. */
  ofThread(threadId: string): TaskRow | null {
    return this.db.select().from(tasks).where(eq(tasks.threadId, threadId)).get() ?? null;
  }

  update(id: string, patch: Partial<TaskRow>, now = Date.now()): TaskRow | null {
    const { id: _, ...fields } = patch;
    return this.db.update(tasks).set({ ...fields, updatedAt: now }).where(eq(tasks.id, id)).returning().get() ?? null;
  }

  /** Newest first: a thread's (as the task's own thread, or as its parent), or all, by status. */
  list(q: { threadId?: string; status?: TaskStatus }, limit = 500): Task[] {
    const where: (SQL | undefined)[] = [];
    if (q.threadId) where.push(or(eq(tasks.threadId, q.threadId), eq(tasks.parentThreadId, q.threadId)));
    if (q.status) where.push(eq(tasks.status, q.status));
    return this.db.select().from(tasks).where(and(...where)).orderBy(desc(tasks.createdAt)).limit(limit).all().map(toTask);
  }

  /** Deleted threads' tasks go with them. */
  forgetThreads(threadIds: string[]): void {
    if (threadIds.length) this.db.delete(tasks).where(inList(tasks.threadId, threadIds)).run();
  }
}
