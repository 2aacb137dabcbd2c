import { and, desc, eq, inArray, lt, or, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { messages, type MessageRow } from "./schema";

export const MESSAGE_KINDS = ["text", "thinking", "tool_call", "tool_result", "pipeline_step", "status"] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/** A page of a thread's messages, oldest first; `before` is the id of the oldest message a client has. */
export async function listMessages(
  db: Db,
  threadId: string,
  opts: { limit: number; before?: string; kinds?: MessageKind[] },
): Promise<MessageRow[] | null> {
  const where: (SQL | undefined)[] = [eq(messages.threadId, threadId)];
  if (opts.kinds?.length) where.push(inArray(messages.kind, opts.kinds));
  if (opts.before) {
    const anchor = await db.query.messages.findFirst({
      where: and(eq(messages.threadId, threadId), eq(messages.id, opts.before)),
      columns: { createdAt: true, id: true },
    });
    if (!anchor) return null;
    where.push(
      or(lt(messages.createdAt, anchor.createdAt), and(eq(messages.createdAt, anchor.createdAt), lt(messages.id, anchor.id))),
    );
  }
  const rows = await db
    .select()
    .from(messages)
    .where(and(...where))
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(opts.limit);
  return rows.reverse();
}

export async function lastTextMessages(db: Db, threadId: string, limit: number): Promise<MessageRow[]> {
  const rows = await db
    .select()
    .from(messages)
    .where(and(eq(messages.threadId, threadId), eq(messages.kind, "text")))
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(limit);
  return rows.reverse();
}
