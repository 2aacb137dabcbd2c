import { and, desc, eq, inArray, lt, or, type SQL } from "drizzle-orm";
import { newId } from "../lib/ids";
import type { Db } from "./client";
import { threads, type ThreadRow } from "./schema";

export type ThreadKind = ThreadRow["kind"];
export type ThreadStatus = ThreadRow["status"];

export interface NewThread {
  ownerId: string;
  name: string;
  kind: ThreadKind;
  model: string;
  parentThreadId?: string | null;
  source?: string;
  sourceId?: string | null;
}

export async function createThread(db: Db, input: NewThread): Promise<ThreadRow> {
  const row = newThreadRow(input);
  await db.insert(threads).values(row);
  return row;
}

export function newThreadRow(input: NewThread, now = Date.now()): ThreadRow {
  return {
    id: newId("thr", now),
    ownerId: input.ownerId,
    source: input.source ?? "web",
    sourceId: input.sourceId ?? null,
    name: input.name,
    kind: input.kind,
    status: "open",
    sessionId: null,
    model: input.model,
    parentThreadId: input.parentThreadId ?? null,
    lastActivity: now,
    createdAt: now,
    updatedAt: now,
  };
}

/** The thread if `ownerId` owns it; another user's thread is indistinguishable from none. */
export async function findOwnedThread(db: Db, ownerId: string, id: string): Promise<ThreadRow | undefined> {
  return db.query.threads.findFirst({ where: and(eq(threads.id, id), eq(threads.ownerId, ownerId)) });
}

export async function findThread(db: Db, id: string): Promise<ThreadRow | undefined> {
  return db.query.threads.findFirst({ where: eq(threads.id, id) });
}

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

export async function updateThread(
  db: Db,
  id: string,
  patch: Partial<Pick<ThreadRow, "name" | "model" | "status" | "sessionId" | "lastActivity">>,
): Promise<ThreadRow | undefined> {
  const [row] = await db
    .update(threads)
    .set({ ...patch, updatedAt: Date.now() })
    .where(eq(threads.id, id))
    .returning();
  return row;
}

/** The thread and every task thread below it, deepest last. */
export async function threadFamily(db: Db, id: string): Promise<string[]> {
  const ids = [id];
  for (let i = 0; i < ids.length && ids.length < 10_000; i++) {
    const children = await db.select({ id: threads.id }).from(threads).where(eq(threads.parentThreadId, ids[i]));
    ids.push(...children.map((c) => c.id));
  }
  return ids;
}
