// A user's rows from D1, read once when the user's object is first touched (a deployment from before
// the object existed, or a user whose object was lost): the directory, text messages for search,
// usage, context files, tasks and attachments' bytes. What the object already holds is kept (an import
// that failed part way is tried again whole). A failed read throws, and the next call tries again.
import { and, eq, gt, inArray } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { database } from "../../db/client";
import { agentRuns, attachments, contextFiles, messages, tasks, threads } from "../../db/schema";
import type { Env } from "../../env";
import type { UserDb } from ".";

const PAGE = 1_000;

export async function importFromD1(env: Env, db: UserDb, userId: string): Promise<number> {
  const d1 = database(env);
  const [threadRows, runRows, fileRows, taskRows, attachmentRows] = await d1.batch([
    d1.select().from(threads).where(eq(threads.ownerId, userId)),
    d1.select().from(agentRuns).where(eq(agentRuns.ownerId, userId)),
    d1.select().from(contextFiles).where(eq(contextFiles.ownerId, userId)),
    d1.select().from(tasks).where(eq(tasks.ownerId, userId)),
    d1.select().from(attachments).where(eq(attachments.ownerId, userId)),
  ]);
  // Text messages by page (a long-standing user has many), in id order.
  const messageRows: (typeof messages.$inferSelect)[] = [];
  const ids = threadRows.map((t) => t.id);
  for (let i = 0; i < ids.length; i += 50) {
    const some = ids.slice(i, i + 50);
    for (let after = ""; ; ) {
      const page = await d1
        .select()
        .from(messages)
        .where(and(inArray(messages.threadId, some), eq(messages.kind, "text"), gt(messages.id, after)))
        .orderBy(messages.id)
        .limit(PAGE);
      messageRows.push(...page);
      if (page.length < PAGE) break;
      after = page[page.length - 1].id;
    }
  }
  const keep = <T extends SQLiteTable>(table: T, rows: T["$inferInsert"][]) => {
    for (const row of rows) db.insert(table).values(row).onConflictDoNothing().run();
  };
  db.transaction(() => {
    keep(threads, threadRows);
    keep(messages, messageRows);
    keep(agentRuns, runRows);
    keep(contextFiles, fileRows);
    keep(tasks, taskRows);
    keep(attachments, attachmentRows);
  });
  return threadRows.length + messageRows.length + runRows.length + fileRows.length + taskRows.length + attachmentRows.length;
}
