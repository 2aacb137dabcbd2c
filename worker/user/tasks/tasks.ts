// The user's delegated tasks. The delegation plugin makes and moves them from the two threads' objects
// (parent and child); they live here, so a task's run reads its task without D1, and a new task is
// checked against its parent's tasks in progress and the user's tasks today in the same step it is made.
import { and, desc, eq, gte, inArray, or, sql, type SQL } from "drizzle-orm";
import type { TaskStatus } from "../../protocol";
import { tasks, type TaskRow } from "../db/schema";
import { utcDayStart } from "../lib/time";
import type { UserDb } from "./db";

const ACTIVE: TaskStatus[] = ["pending", "running", "evaluating"];

export interface TaskBounds {
  /** Tasks in progress one thread may have. */
  perThread: number;
  /** Tasks a user may start a day (UTC). */
  perDay: number;
}

export type TaskRefusal = "thread" | "day";

export class UserTasks {
  constructor(private readonly db: UserDb) {}

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
  list(q: { threadId?: string; status?: TaskStatus }, limit = 500): TaskRow[] {
    const where: (SQL | undefined)[] = [];
    if (q.threadId) where.push(or(eq(tasks.threadId, q.threadId), eq(tasks.parentThreadId, q.threadId)));
    if (q.status) where.push(eq(tasks.status, q.status));
    return this.db.select().from(tasks).where(and(...where)).orderBy(desc(tasks.createdAt)).limit(limit).all();
  }
}
