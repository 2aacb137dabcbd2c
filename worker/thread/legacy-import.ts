// A thread created before the object became its primary store has its rows in D1 only. On first touch
// its object reads them once (one batch) and keeps them: the messages form one branch (each user
// message follows the one before), and the model is given the text history on the next run.
import { asc, eq } from "drizzle-orm";
import type { MessageMetadata } from "../../protocol";
import type { Db } from "../db/client";
import { messages, threads } from "../db/schema";
import type { RoomStore } from "./store";
import { messageRecord } from "./store/messages";
import type { ThreadRecord } from "./store/thread-row";
import type { ThreadWriter } from "./writer";

export class LegacyImport {
  private importing: Promise<ThreadRecord | null> | null = null;

  constructor(
    private readonly db: Db,
    private readonly store: RoomStore,
    private readonly writer: ThreadWriter,
  ) {}

  /** The thread, from D1 if this store does not hold it; requests that come together share one read. */
  load(threadId: string): Promise<ThreadRecord | null> {
    this.importing ??= importFromD1(this.db, this.store, this.writer, threadId).finally(() => (this.importing = null));
    return this.importing;
  }
}

async function importFromD1(db: Db, store: RoomStore, writer: ThreadWriter, threadId: string): Promise<ThreadRecord | null> {
  const [[row], rows] = await db.batch([
    db.select().from(threads).where(eq(threads.id, threadId)),
    db.select().from(messages).where(eq(messages.threadId, threadId)).orderBy(asc(messages.createdAt), asc(messages.id)),
  ]);
  if (!row || store.thread.get()) return store.thread.get();
  store.transaction(() => {
    let head: string | null = null;
    for (const m of rows) {
      const input = m.role === "user";
      writer.addMessage(messageRecord({ ...m, metadata: (m.metadata ?? {}) as MessageMetadata, threadId, parentId: head, input }));
      if (input) head = m.id;
    }
    writer.createThread({
      id: row.id,
      ownerId: row.ownerId,
      source: row.source,
      name: row.name,
      kind: row.kind,
      status: row.status,
      model: row.model,
      // The old object's conversation is gone: the next run injects the history instead.
      sessionId: null,
      parentThreadId: row.parentThreadId,
      instructions: row.instructions,
      headId: head,
      named: row.name !== "New thread",
      lastActivity: row.lastActivity,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    });
  });
  return store.thread.get();
}
